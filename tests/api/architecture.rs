//! The dependency rule of docs/architecture.md, held by a test: nothing below `services` names a
//! transport crate (records and domain types may only derive a transport's traits), and SQL stays
//! in `db/` (and the search query builder).

use std::path::Path;

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn files_under(layer: &str) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("src")
        .join(layer);
    if dir.exists() {
        rust_files(&dir, &mut files);
    }
    files
}

#[test]
fn layers_below_services_do_not_name_transports() {
    for layer in ["services", "db", "auth", "transform", "search"] {
        for file in files_under(layer) {
            let text = std::fs::read_to_string(&file).unwrap();
            for forbidden in [
                "axum",
                "async_graphql",
                "rmcp",
                "crate::rest",
                "crate::graphql",
                "crate::mcp",
                "crate::ogc",
                "crate::web",
            ] {
                assert!(
                    !text.contains(forbidden),
                    "{} names {forbidden}",
                    file.display()
                );
            }
        }
    }
}

/// A record's shape is written once, in `records/` (or `domain/` for enums and value types): the
/// one struct derives sqlx, serde, OpenAPI and GraphQL traits. Deriving is all these layers may do
/// with a transport: no resolver context, no handler, no router.
#[test]
fn records_and_domain_types_only_derive_transport_traits() {
    for layer in ["records", "domain"] {
        for file in files_under(layer) {
            let text = std::fs::read_to_string(&file).unwrap();
            for line in text.lines().filter(|l| !l.trim_start().starts_with("//")) {
                if line.contains("async_graphql") {
                    assert!(
                        line.contains("derive("),
                        "{} uses async_graphql beyond a derive: {line}",
                        file.display()
                    );
                }
                for forbidden in [
                    "axum",
                    "rmcp",
                    "crate::rest",
                    "crate::graphql",
                    "Context<",
                    "ComplexObject]",
                    "sqlx::query",
                ] {
                    assert!(
                        !line.contains(forbidden),
                        "{} names {forbidden}",
                        file.display()
                    );
                }
            }
        }
    }
}

#[test]
fn sql_lives_in_the_database_layer() {
    let forbidden = [
        "sqlx::query",
        "sqlx::Executor",
        "SELECT ",
        "INSERT INTO",
        "UPDATE ",
        "DELETE FROM",
        "SET LOCAL",
    ];
    for layer in [
        "services",
        "rest",
        "graphql",
        "mcp",
        "ogc",
        "web",
        "domain",
        "records",
        "auth",
        "transform",
    ] {
        for file in files_under(layer) {
            let code: Vec<String> = std::fs::read_to_string(&file)
                .unwrap()
                .lines()
                .filter(|line| !line.trim_start().starts_with("//"))
                .map(str::to_string)
                .collect();
            for word in forbidden {
                assert!(
                    !code.iter().any(|l| l.contains(word)),
                    "{} contains {word:?}",
                    file.display()
                );
            }
        }
    }
}

/// The record is the GraphQL object: `graphql/` adds edges with `#[ComplexObject]` and never wraps
/// a record in a newtype (`struct EntityNode(pub Entity)`) to re-expose its fields by hand.
#[test]
fn graphql_declares_no_newtype_wrapper_around_a_record() {
    let mut records = Vec::new();
    for file in files_under("records") {
        let text = std::fs::read_to_string(&file).unwrap();
        for line in text.lines() {
            if let Some(rest) = line.trim_start().strip_prefix("pub struct ") {
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                records.push(name);
            }
        }
    }
    assert!(
        records.iter().any(|r| r == "Entity"),
        "records: {records:?}"
    );
    for file in files_under("graphql") {
        let text = std::fs::read_to_string(&file).unwrap();
        for line in text.lines().filter(|l| !l.trim_start().starts_with("//")) {
            assert!(
                !line.contains("Node(pub "),
                "{} wraps a record: {line}",
                file.display()
            );
            let Some(start) = line.find("struct ") else {
                continue;
            };
            let Some(open) = line[start..].find('(') else {
                continue;
            };
            let inner = line[start + open + 1..]
                .trim_start_matches("pub ")
                .split([')', ',', '<'])
                .next()
                .unwrap_or("")
                .rsplit("::")
                .next()
                .unwrap_or("")
                .trim()
                .to_string();
            assert!(
                !records.contains(&inner),
                "{} declares a newtype around the record {inner}: {line}",
                file.display()
            );
        }
    }
}
