//! Writes `vectors/base.jsonl`, `vectors.json`, `tree.json`, `excerpt.json` and `ots.json`,
//! deterministically (the generator is `exhibit_testkit::vectors`):
//!
//!     cargo run --example gen-vectors -- vectors          # write
//!     cargo run --example gen-vectors -- vectors --check  # exit 1 if the files would change

fn main() {
    exhibit_testkit::vectors::main(std::env::args().skip(1));
}
