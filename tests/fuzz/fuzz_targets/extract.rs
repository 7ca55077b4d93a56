//! Fuzz target `extract`: see `parcels_fuzz::extract` for what it runs.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = parcels_fuzz::extract(data);
});
