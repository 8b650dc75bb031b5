//! idle, Rayon: idle --workers N period_us region_us seconds   (idle.h: every period, a
//! region of N tasks (rayon::scope, pool.install from the main thread), each spinning region_us / N
//! microseconds; prints the same fields as the C versions). CPU time is the sum of
//! /proc/self/task/*/schedstat (nanoseconds on a CPU), as the crate has no getrusage binding.
use merino_bench_rayon::*;
use std::cell::Cell;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::{Duration, Instant};

thread_local!(static SUBMITTER: Cell<bool> = Cell::new(false));

fn cpu_ns() -> i64 {
    let mut total = 0i64;
    if let Ok(dir) = std::fs::read_dir("/proc/self/task") {
        for e in dir.flatten() {
            if let Ok(s) = std::fs::read_to_string(e.path().join("schedstat")) {
                total += s.split_whitespace().next().and_then(|v| v.parse::<i64>().ok()).unwrap_or(0);
            }
        }
    }
    total
}

fn quantile_us(v: &mut Vec<i64>, q: f64) -> f64 {
    if v.is_empty() {
        return -1.0;
    }
    v.sort();
    let i = (q * (v.len() - 1) as f64 + 0.5) as usize;
    v[i] as f64 * 1e-3
}

fn main() {
    let usage = "period_us region_us seconds [tasks]";
    let a = args(usage);
    let period_us = param(&a, 0, usage);
    let region_us = param(&a, 1, usage);
    let seconds: f64 = a.params.get(2).and_then(|s| s.parse().ok()).unwrap_or_else(|| {
        eprintln!("usage: --workers N {}", usage);
        std::process::exit(2)
    });
    // tasks per region: the fourth parameter, as the C versions', default the worker count
    let n = if a.params.len() > 3 { param(&a, 3, usage).clamp(1, 64) as usize } else { a.workers };
    let workers = a.workers;
    SUBMITTER.with(|s| s.set(true));
    // bench_spin iterations per microsecond
    let mut it = 1_000_000i64;
    let ipus = loop {
        let t0 = Instant::now();
        spin(it);
        let t = t0.elapsed().as_secs_f64();
        if t >= 0.02 {
            break it as f64 / (t * 1e6);
        }
        it *= 2;
    };
    let iters = if region_us > 0 { (ipus * region_us as f64 / n as f64) as i64 } else { 0 };
    let p = pool(workers);
    let epoch = Instant::now();
    let busy = AtomicI64::new(0);
    let ran = AtomicI64::new(0);
    let first = AtomicI64::new(i64::MAX);
    let other = AtomicI64::new(i64::MAX);
    let now_ns = || epoch.elapsed().as_nanos() as i64;
    let task = || {
        let t0 = now_ns();
        first.fetch_min(t0, Ordering::Relaxed);
        if !SUBMITTER.with(|s| s.get()) {
            other.fetch_min(t0, Ordering::Relaxed);
        }
        if iters > 0 {
            spin(iters);
            busy.fetch_add(now_ns() - t0, Ordering::Relaxed);
        }
        ran.fetch_add(1, Ordering::Relaxed);
    };
    let region = || {
        p.install(|| {
            rayon::scope(|s| {
                for _ in 0..n {
                    s.spawn(|_| task());
                }
            })
        })
    };
    region();
    busy.store(0, Ordering::Relaxed);
    ran.store(0, Ordering::Relaxed);
    let (mut firsts, mut others) = (Vec::new(), Vec::new());
    let c0 = cpu_ns();
    let t_start = now_ns();
    let t_end = t_start + (seconds * 1e9) as i64;
    let mut next = t_start;
    let mut regions = 0i64;
    loop {
        next += period_us * 1000;
        if next >= t_end {
            break;
        }
        let now = now_ns();
        if next > now {
            std::thread::sleep(Duration::from_nanos((next - now) as u64));
        }
        first.store(i64::MAX, Ordering::Relaxed);
        other.store(i64::MAX, Ordering::Relaxed);
        let t_submit = now_ns();
        region();
        firsts.push(first.load(Ordering::Relaxed) - t_submit);
        let o = other.load(Ordering::Relaxed);
        if o != i64::MAX {
            others.push(o - t_submit);
        }
        regions += 1;
        let now = now_ns();
        if next < now {
            next = now;
        }
    }
    let wall = (now_ns() - t_start) as f64 * 1e-9;
    let cpu = (cpu_ns() - c0) as f64 * 1e-9;
    let b = busy.load(Ordering::Relaxed) as f64 * 1e-9;
    let ok = ran.load(Ordering::Relaxed) == regions * n as i64;
    let ratio = if b > 0.0 { format!("{:.4}", cpu / b) } else { "null".to_string() };
    let nother = others.len();
    println!(
        "{{\"seconds\": {:.6}, \"check\": \"{}\", \"result\": {}, \"tasks\": {}, \"cpu_s\": {:.6}, \"busy_s\": {:.6}, \
         \"cpu_over_busy\": {}, \"idle_cpus\": {:.5}, \"first_med_us\": {:.2}, \"first_p99_us\": {:.2}, \
         \"other_med_us\": {:.2}, \"other_p99_us\": {:.2}, \"other_regions\": {}, \"period_us\": {}, \"region_us\": {}}}",
        wall, if ok { "ok" } else { "FAIL" }, regions, regions * n as i64, cpu, b, ratio, (cpu - b) / wall,
        quantile_us(&mut firsts, 0.5), quantile_us(&mut firsts, 0.99), quantile_us(&mut others, 0.5),
        quantile_us(&mut others, 0.99), nother, period_us, region_us
    );
    std::process::exit(if ok { 0 } else { 1 })
}
