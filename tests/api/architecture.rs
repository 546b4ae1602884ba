//! The dependency rules of docs/architecture.md, held by tests: nothing below `services` names a
//! transport crate (records and domain types may only derive a transport's traits); the adapters
//! (rest, graphql, mcp, web) stand on the `http` floor and on `services`, never on each other or on
//! `db`; and SQL stays in `db/` (and the search query builder).

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
    for layer in ["services", "db", "auth", "transform", "search", "export"] {
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
                "crate::ogc",
                "crate::http",
                "crate::app",
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
        "export",
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

/// Lines of code (comments left out) of every file under these layers.
fn code_lines(layers: &[&str]) -> Vec<(std::path::PathBuf, String)> {
    let mut lines = Vec::new();
    for layer in layers {
        for file in files_under(layer) {
            let text = std::fs::read_to_string(&file).unwrap();
            for line in text.lines().filter(|l| !l.trim_start().starts_with("//")) {
                lines.push((file.clone(), line.to_string()));
            }
        }
    }
    lines
}

#[test]
fn graphql_mcp_ogc_and_web_stand_on_the_http_floor_not_on_rest() {
    for (file, line) in code_lines(&["graphql", "mcp", "ogc", "web", "http"]) {
        assert!(
            !line.contains("crate::rest"),
            "{} names crate::rest: {line}",
            file.display()
        );
    }
}

#[test]
fn adapters_reach_the_database_only_through_services() {
    for (file, line) in code_lines(&["rest", "graphql", "mcp", "ogc", "web", "http"]) {
        assert!(
            !line.contains("crate::db"),
            "{} names crate::db: {line}",
            file.display()
        );
    }
}

/// The application assembles the adapters; an adapter that called back into it (for the OpenAPI
/// document, say) would make a circle. What an adapter needs from the assembly is handed to it.
#[test]
fn adapters_and_the_http_floor_never_call_the_application() {
    for (file, line) in code_lines(&["rest", "graphql", "mcp", "ogc", "web", "http"]) {
        assert!(
            !line.contains("crate::app::"),
            "{} names crate::app: {line}",
            file.display()
        );
    }
}

/// The floor below the adapters names none of them.
#[test]
fn the_http_floor_names_no_adapter() {
    for (file, line) in code_lines(&["http"]) {
        for adapter in [
            "crate::graphql",
            "crate::mcp",
            "crate::ogc",
            "crate::web",
            "crate::rest",
        ] {
            assert!(
                !line.contains(adapter),
                "{} names {adapter}: {line}",
                file.display()
            );
        }
    }
}

#[test]
fn the_error_type_names_no_database() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/error.rs");
    let text = std::fs::read_to_string(path).unwrap();
    for line in text.lines().filter(|l| !l.trim_start().starts_with("//")) {
        for forbidden in ["sqlx", "crate::db", "postgres"] {
            assert!(
                !line.contains(forbidden),
                "src/error.rs names {forbidden}: {line}"
            );
        }
    }
}

/// GraphQL's machinery (transports, limits, loaders, paging) sits below the schema's types: a
/// loader or a transport that named a type's module would make the circle this folder once had
/// through `request_loaders`.
#[test]
fn graphql_machinery_names_no_schema_type() {
    for (file, line) in code_lines(&["graphql/machinery"]) {
        assert!(
            !line.contains("graphql::types") && !line.contains("super::super::types"),
            "{} names the schema's types: {line}",
            file.display()
        );
    }
}

/// Configuration is read before any layer is built and by every layer: it names none of them.
#[test]
fn configuration_names_no_layer_above_it() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/config.rs");
    let text = std::fs::read_to_string(path).unwrap();
    for line in text.lines().filter(|l| !l.trim_start().starts_with("//")) {
        for forbidden in [
            "crate::http",
            "crate::rest",
            "crate::graphql",
            "crate::mcp",
            "crate::ogc",
            "crate::web",
            "crate::services",
            "crate::db",
            "axum",
        ] {
            assert!(
                !line.contains(forbidden),
                "src/config.rs names {forbidden}: {line}"
            );
        }
    }
}
