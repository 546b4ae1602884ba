//! Figures about processes and settings that every bench reads the same way.

/// A variable of the environment, or `default` when it is unset or does not parse.
pub fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// VmHWM (peak resident memory) of process `pid` in KiB; 0 when it cannot be read.
pub fn peak_rss_kb(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.split_whitespace().next()?.parse().ok())
        })
        .unwrap_or(0)
}

/// Linux reports process CPU time in clock ticks of USER_HZ, 100 on every mainstream arch.
const TICKS_PER_SEC: f64 = 100.0;

/// Fields of /proc/<pid>/stat after the command name (which may hold spaces): [0] state (read as
/// 0), [1] ppid, [11] utime, [12] stime, [13] cutime, [14] cstime.
fn stat_fields(pid: u32) -> Option<Vec<u64>> {
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

/// CPU seconds a PostgreSQL cluster has used so far: its postmaster (the first line of
/// `postmaster.pid` in `data_dir`), the live children, and the children it has reaped.
pub fn cluster_cpu_seconds(data_dir: &std::path::Path) -> f64 {
    let Some(postmaster) = std::fs::read_to_string(data_dir.join("postmaster.pid"))
        .ok()
        .and_then(|text| text.lines().next()?.trim().parse::<u32>().ok())
    else {
        return 0.0;
    };
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0.0;
    };
    let mut ticks = 0;
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        let Some(f) = stat_fields(pid) else { continue };
        if pid == postmaster {
            ticks += f[11] + f[12] + f[13] + f[14];
        } else if f[1] == u64::from(postmaster) {
            ticks += f[11] + f[12];
        }
    }
    ticks as f64 / TICKS_PER_SEC
}
