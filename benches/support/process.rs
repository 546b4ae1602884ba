//! Figures about processes and settings that every bench reads the same way.

/// A variable of the environment, or `default` when it is unset or does not parse.
pub fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Which rows of its report a bench runs: those whose names contain one of the comma-separated
/// parts of the variable `var`, or every row when it is unset (for profiling one path).
pub fn chosen(var: &str) -> impl Fn(&str) -> bool {
    let only = std::env::var(var).unwrap_or_default();
    move |name| only.is_empty() || only.split(',').any(|part| name.contains(part))
}

/// A field of /proc/`pid`/status given in kB (`VmHWM:`, `RssAnon:`...); 0 when it cannot be read.
fn status_kb(status: &str, field: &str) -> u64 {
    status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

fn status_of(pid: u32) -> String {
    std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default()
}

/// VmHWM (peak resident memory) of process `pid` in KiB; 0 when it cannot be read.
pub fn peak_rss_kb(pid: u32) -> u64 {
    status_kb(&status_of(pid), "VmHWM:")
}

/// Resident memory of process `pid` now, in KiB: (anonymous, file-backed: the binary's pages
/// and the libraries'), from /proc; zeros when it cannot be read.
pub fn resident_split_kb(pid: u32) -> (u64, u64) {
    let status = status_of(pid);
    (
        status_kb(&status, "RssAnon:"),
        status_kb(&status, "RssFile:"),
    )
}

/// How this machine's idle CPUs sleep, e.g. "cpuidle haltpoll, guest halt polling 0 ns": on a VM
/// whose idle vCPUs halt at once, every wake-up of a thread on an idle vCPU goes through the host,
/// which bounds request/response loops with few connections (docs/bench-log/hot-paths.md, "Reads by id
/// wait for idle vCPUs to wake"). `None` where Linux does not say.
pub fn idle_policy() -> Option<String> {
    let read = |path: &str| {
        std::fs::read_to_string(path)
            .ok()
            .map(|text| text.trim().to_string())
    };
    let driver = read("/sys/devices/system/cpu/cpuidle/current_driver")?;
    Some(
        match read("/sys/module/haltpoll/parameters/guest_halt_poll_ns") {
            Some(ns) => format!("cpuidle {driver}, guest halt polling {ns} ns"),
            None => format!("cpuidle {driver}"),
        },
    )
}

/// Linux reports process CPU time in clock ticks of USER_HZ, 100 on every mainstream arch.
pub const TICKS_PER_SEC: f64 = 100.0;

/// Fields of /proc/<pid>/stat after the command name (which may hold spaces): [0] state (read as
/// 0), [1] ppid, [11] utime, [12] stime, [13] cutime, [14] cstime.
pub fn stat_fields(pid: u32) -> Option<Vec<u64>> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 1..];
    Some(
        rest.split_whitespace()
            .map(|f| f.parse().unwrap_or(0))
            .collect(),
    )
}

/// CPU seconds (user + system) process `pid` has used so far; 0 when it cannot be read.
pub fn cpu_seconds(pid: u32) -> f64 {
    stat_fields(pid).map_or(0.0, |f| (f[11] + f[12]) as f64 / TICKS_PER_SEC)
}

/// The postmaster of the cluster in `data_dir` (the first line of its `postmaster.pid`).
pub fn postmaster_pid(data_dir: &std::path::Path) -> Option<u32> {
    spacetime_records::db::cluster::postmaster_pid(data_dir).and_then(|pid| u32::try_from(pid).ok())
}

/// The postmaster and its children (backends, background workers).
pub fn pg_processes(postmaster: u32) -> Vec<u32> {
    let mut pids = vec![postmaster];
    if let Ok(dir) = std::fs::read_dir("/proc") {
        for entry in dir.flatten() {
            let Some(pid) = entry
                .file_name()
                .to_str()
                .and_then(|n| n.parse::<u32>().ok())
            else {
                continue;
            };
            if stat_fields(pid).is_some_and(|f| f.get(1) == Some(&u64::from(postmaster))) {
                pids.push(pid);
            }
        }
    }
    pids
}

/// CPU ticks a PostgreSQL cluster has used so far: its live processes, and the children the
/// postmaster has reaped (its cutime/cstime).
pub fn cluster_cpu_ticks(postmaster: u32) -> u64 {
    let mut ticks = 0;
    for pid in pg_processes(postmaster) {
        let Some(f) = stat_fields(pid) else { continue };
        ticks += f[11] + f[12];
        if pid == postmaster {
            ticks += f[13] + f[14];
        }
    }
    ticks
}

/// CPU seconds the PostgreSQL cluster in `data_dir` has used so far (`cluster_cpu_ticks`).
pub fn cluster_cpu_seconds(data_dir: &std::path::Path) -> f64 {
    postmaster_pid(data_dir).map_or(0.0, |p| cluster_cpu_ticks(p) as f64 / TICKS_PER_SEC)
}
