//! The configuration as documented: every environment variable the binary reads is listed in
//! `.env.example` and in the README's table (and nothing else is), and a `.env` file in the
//! current directory is read, with the real environment winning over it.

use clap::Args;
use spacetime_records::config::Config;
use std::collections::BTreeSet;
use std::process::Command;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn read(path: &str) -> String {
    std::fs::read_to_string(format!("{ROOT}/{path}")).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The variables of `Config` (as clap sees them) and the admin commands' `env = "..."` in main.rs,
/// plus the two the process reads itself (the log filter and the allocator's options).
fn variables_read() -> BTreeSet<String> {
    let mut names: BTreeSet<String> = Config::augment_args(clap::Command::new("t"))
        .get_arguments()
        .filter_map(|arg| arg.get_env())
        .map(|name| name.to_string_lossy().into_owned())
        .collect();
    for part in read("src/main.rs").split("env = \"").skip(1) {
        names.insert(part.split('"').next().unwrap().to_string());
    }
    for name in [
        "RUST_LOG",
        "MIMALLOC_PURGE_DELAY",
        "MIMALLOC_ARENA_EAGER_COMMIT",
    ] {
        names.insert(name.to_string());
    }
    names
}

/// `NAME=value` lines of `.env.example`, commented out or not.
fn example_variables() -> BTreeSet<String> {
    read(".env.example")
        .lines()
        .map(|line| line.trim_start_matches('#').trim())
        .filter_map(|line| line.split_once('='))
        .map(|(name, _)| name.to_string())
        .filter(|name| {
            !name.is_empty()
                && name
                    .chars()
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
        })
        .collect()
}

/// The first column of the README's configuration table (`| \`NAME\` | ...`).
fn readme_variables() -> BTreeSet<String> {
    read("README.md")
        .lines()
        .filter_map(|line| line.strip_prefix("| `"))
        .flat_map(|rest| {
            let cell = rest.split(" |").next().unwrap_or_default();
            cell.split(", ")
                .map(|name| name.trim_matches('`').to_string())
                .collect::<Vec<_>>()
        })
        .filter(|name| name.chars().all(|c| c.is_ascii_uppercase() || c == '_'))
        .collect()
}

#[test]
fn every_variable_the_binary_reads_is_in_env_example_and_the_readme_and_nothing_else_is() {
    let read = variables_read();
    assert!(read.len() >= 25, "only {} variables found", read.len());
    let example = example_variables();
    assert_eq!(
        read.difference(&example).collect::<Vec<_>>(),
        Vec::<&String>::new(),
        "read by the binary but missing from .env.example"
    );
    assert_eq!(
        example.difference(&read).collect::<Vec<_>>(),
        Vec::<&String>::new(),
        "in .env.example but read by nothing"
    );
    let readme = readme_variables();
    assert_eq!(
        read.difference(&readme).collect::<Vec<_>>(),
        Vec::<&String>::new(),
        "read by the binary but missing from the README's configuration table"
    );
    assert_eq!(
        readme.difference(&read).collect::<Vec<_>>(),
        Vec::<&String>::new(),
        "in the README's configuration table but read by nothing"
    );
}

/// `--help` prints each variable's current value (`[env: NAME=value]`) without touching a
/// database: it shows what the binary would run with.
fn help_in(dir: &std::path::Path, env: &[(&str, &str)]) -> std::process::Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_spacetime-records"));
    command.arg("--help").current_dir(dir);
    for name in ["STRS_BIND", "STRS_DB_MAX_CONNECTIONS", "STRS_LOG_JSON"] {
        command.env_remove(name);
    }
    command.envs(env.iter().copied());
    command.output().unwrap()
}

#[test]
fn a_dot_env_file_in_the_current_directory_is_read_and_the_real_environment_wins_over_it() {
    let dir = crate::harness::tmp_dir().join(format!("dotenv-{}", uuid::Uuid::now_v7()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join(".env"),
        "# a comment\nSTRS_BIND=127.0.0.1:18181\nSTRS_DB_MAX_CONNECTIONS=7\n",
    )
    .unwrap();
    let out = help_in(&dir, &[("STRS_DB_MAX_CONNECTIONS", "9")]);
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{help}");
    assert!(help.contains("STRS_BIND=127.0.0.1:18181"), "{help}");
    assert!(help.contains("STRS_DB_MAX_CONNECTIONS=9"), "{help}");
    assert!(!help.contains("STRS_DB_MAX_CONNECTIONS=7"), "{help}");

    let empty = dir.join("elsewhere");
    std::fs::create_dir_all(&empty).unwrap();
    let help = String::from_utf8_lossy(&help_in(&empty, &[]).stdout).into_owned();
    assert!(!help.contains("18181"), "a parent's .env was read: {help}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_malformed_dot_env_file_stops_the_binary_with_its_name() {
    let dir = crate::harness::tmp_dir().join(format!("dotenv-bad-{}", uuid::Uuid::now_v7()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(".env"), "STRS_BIND='unterminated\n").unwrap();
    let out = help_in(&dir, &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains(".env"), "{stderr}");
    std::fs::remove_dir_all(&dir).unwrap();
}
