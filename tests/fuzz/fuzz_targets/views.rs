//! Fuzz target `views`: see `parcels_fuzz::views` for what it runs.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = parcels_fuzz::views(data);
});
