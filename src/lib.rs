//! parcels
