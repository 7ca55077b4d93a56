//! Fuzz target `page_divide`: see `parcels_fuzz::page_divide` for what it runs.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = parcels_fuzz::page_divide(data);
});
