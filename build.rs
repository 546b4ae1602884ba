// `sqlx::migrate!` embeds the migrations at compile time; without this a new migration file would
// not rebuild the crate, and a binary built before it would silently run without it.
fn main() {
    println!("cargo:rerun-if-changed=migrations");
}
