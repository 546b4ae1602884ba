//! pgbench as the ceiling of a workload: the service's own statements, run by PostgreSQL's
//! benchmark client against the bench database with the same client count.

use anyhow::{Context, bail};
use spacetime_records::db::cluster::EmbeddedCluster;
use std::process::Command;

pub struct Options<'a> {
    pub clients: usize,
    pub seconds: u64,
    /// pgbench's `-M`: `prepared` as the service's pools run statements, or `extended`.
    pub protocol: &'a str,
    /// The service's search sessions: every execution planned for its values
    /// (`plan_cache_mode = force_custom_plan`), no parallel workers.
    pub search_session: bool,
}

/// One statement as a script line: `$n` becomes the variable `name(n)` holding the n-th value,
/// or SQL NULL where the value is `None`. The variables to pass are appended to `variables`.
pub fn script_line(
    sql: &str,
    values: &[Option<String>],
    name: impl Fn(usize) -> String,
    variables: &mut Vec<(String, String)>,
) -> String {
    let mut line = sql.replace('\n', " ");
    for (i, value) in values.iter().enumerate().rev() {
        let replacement = match value {
            None => "NULL".to_string(),
            Some(value) => {
                let variable = name(i + 1);
                variables.push((variable.clone(), value.clone()));
                format!(":{variable}")
            }
        };
        line = replace_parameter(&line, i + 1, &replacement);
    }
    format!("{line};\n")
}

/// `$n` (never the start of `$n0`…) replaced in `sql`.
pub fn replace_parameter(sql: &str, n: usize, with: &str) -> String {
    let needle = format!("${n}");
    let mut out = String::with_capacity(sql.len());
    let mut rest = sql;
    while let Some(at) = rest.find(&needle) {
        let after = &rest[at + needle.len()..];
        out.push_str(&rest[..at]);
        if after.starts_with(|c: char| c.is_ascii_digit()) {
            out.push_str(&needle);
        } else {
            out.push_str(with);
        }
        rest = after;
    }
    out.push_str(rest);
    out
}

/// Runs `script` (one transaction per pass) with `variables` on `database`: transactions/s.
pub fn tps(
    cluster: &EmbeddedCluster,
    database: &str,
    script: &str,
    variables: &[(String, String)],
    options: &Options<'_>,
) -> anyhow::Result<f64> {
    let path = std::env::temp_dir().join(format!(
        "strs-pgbench-{}-{}.sql",
        std::process::id(),
        uuid::Uuid::now_v7().simple()
    ));
    std::fs::write(&path, script)?;
    let mut command = Command::new(cluster.bindir().join("pgbench"));
    command.args(["-n", "-M", options.protocol, "-j", "2"]);
    command.args(["-c", &options.clients.to_string()]);
    command.args(["-T", &options.seconds.to_string()]);
    command.args(["-h", &cluster.socket_dir.to_string_lossy()]);
    command.args(["-p", &cluster.port.to_string(), "-U", "postgres"]);
    // The service's sessions run with JIT off (`db::SessionLimits`); with it on, a statement whose
    // estimate crosses `jit_above_cost` (a tile, a broad search at 10M) paid a compilation on
    // every run and the ceiling read 5-7 r/s where the server did 50-230.
    command.env(
        "PGOPTIONS",
        if options.search_session {
            "-c jit=off -c plan_cache_mode=force_custom_plan -c max_parallel_workers_per_gather=0"
        } else {
            "-c jit=off"
        },
    );
    for (name, value) in variables {
        command.arg("-D").arg(format!("{name}={value}"));
    }
    let output = command.arg("-f").arg(&path).arg(database).output();
    let _ = std::fs::remove_file(&path);
    let output = output.context("running pgbench")?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        bail!(
            "pgbench failed: {stdout}{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    stdout
        .lines()
        .find_map(|line| {
            line.strip_prefix("tps = ")
                .and_then(|rest| rest.split_whitespace().next()?.parse().ok())
        })
        .context("no tps line in pgbench output")
}
