//! The repository's documentation stands alone: every relative link of README.md and docs/
//! names a file of the repository, docs/README.md lists every page of docs/, and no page points
//! at files outside the repository.

use std::path::{Path, PathBuf};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// README.md and every Markdown page under docs/.
fn pages() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "md") {
                out.push(path);
            }
        }
    }
    let mut out = vec![Path::new(ROOT).join("README.md")];
    walk(&Path::new(ROOT).join("docs"), &mut out);
    out.sort();
    out
}

/// The targets of `[text](target)` links, without their `#anchor`.
fn links(markdown: &str) -> Vec<String> {
    markdown
        .split("](")
        .skip(1)
        .filter_map(|rest| rest.split(')').next())
        .map(|target| target.split('#').next().unwrap_or("").trim().to_string())
        .collect()
}

#[test]
fn every_relative_link_of_the_readme_and_docs_names_a_file_of_the_repository() {
    let root = Path::new(ROOT).canonicalize().unwrap();
    let mut broken = Vec::new();
    let mut checked = 0;
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        for target in links(&text) {
            // Absolute paths are the server's routes (the served guides link those); anchors
            // within the page and web addresses are not files.
            if target.is_empty()
                || target.starts_with('/')
                || target.starts_with('{')
                || target.contains("://")
                || target.starts_with("mailto:")
            {
                continue;
            }
            let resolved = page.parent().unwrap().join(&target);
            match resolved.canonicalize() {
                Ok(path) if path.starts_with(&root) => checked += 1,
                _ => broken.push(format!("{}: {target}", page.display())),
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
    assert!(checked >= 40, "only {checked} links checked");
}

#[test]
fn the_docs_index_lists_every_page_of_docs() {
    let docs = Path::new(ROOT).join("docs");
    let index = std::fs::read_to_string(docs.join("README.md")).unwrap();
    let listed = links(&index);
    let mut missing = Vec::new();
    for page in pages() {
        let Ok(relative) = page.strip_prefix(&docs) else {
            continue;
        };
        let relative = relative.to_string_lossy().into_owned();
        if relative == "README.md" {
            continue;
        }
        // The served folders are listed as folders: each of their pages counts as listed.
        let folder = relative.split('/').next().unwrap().to_string() + "/";
        let served = ["agent-docs/", "terms/"].contains(&folder.as_str());
        let named = listed
            .iter()
            .any(|l| l == &relative || (served && l.starts_with(&folder)));
        if !named {
            missing.push(relative);
        }
    }
    assert!(missing.is_empty(), "not in docs/README.md: {missing:?}");
    for word in [
        "Space-time entry",
        "Canonical record",
        "Link contribution",
        "Transformer",
        "rubric",
        "Review",
        "Trust certificate",
        "Ledger",
    ] {
        assert!(
            index.contains(&format!("**{word}")) || index.contains(&format!("({word}")),
            "the glossary lacks {word}"
        );
    }
}

#[test]
fn no_page_refers_to_files_outside_the_repository() {
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        for outside in ["shared/", "SPEC.md", "STACK.md", "ARCHITECTURE.md"] {
            assert!(
                !text.contains(outside),
                "{} mentions {outside}",
                page.display()
            );
        }
    }
}
