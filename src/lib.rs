//! parcels

pub mod boost;
pub mod matrix;
