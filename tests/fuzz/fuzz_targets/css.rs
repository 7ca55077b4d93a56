//! Fuzz target `css`: see `parcels_fuzz::css` for what it runs.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = parcels_fuzz::css(data);
});
