//! Types of the specification that carry their own rules: enums, decimals, coordinates, paging.
pub mod area;
pub mod cursor;
pub mod decimal;
pub mod enums;
pub mod geo;
pub mod handle;
pub mod json;
pub mod ledger;
pub mod paging;
pub mod validation;

pub use decimal::DecimalInput;
pub use enums::*;
pub use paging::{ListParams, Page};
pub use validation::Violations;
