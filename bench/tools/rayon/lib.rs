//! Shared helpers for the Rayon benchmarks: argument parsing, the JSON line, an empty loop the
//! compiler keeps, and the worker pool (rayon::ThreadPoolBuilder with --workers threads).
use std::hint::black_box;
use std::time::Instant;

pub struct Args {
    pub workers: usize,
    pub reps: usize,
    pub params: Vec<String>,
}

pub fn args(usage: &str) -> Args {
    let mut workers = 1usize;
    let mut reps = 1usize;
    let mut params = Vec::new();
    let argv: Vec<String> = std::env::args().collect();
    let mut i = 1;
    let bad = |msg: &str| -> ! {
        eprintln!("{}: {}\nusage: {} --workers N [--reps R] {}", argv[0], msg, argv[0], usage);
        std::process::exit(2)
    };
    while i < argv.len() {
        let a = argv[i].as_str();
        let (key, val) = if let Some(v) = a.strip_prefix("--workers=") {
            ("w", Some(v.to_string()))
        } else if let Some(v) = a.strip_prefix("--reps=") {
            ("r", Some(v.to_string()))
        } else if a == "--workers" || a == "-w" || a == "--reps" || a == "-r" {
            i += 1;
            if i >= argv.len() {
                bad(&format!("{} needs a value", a));
            }
            (if a.contains('w') { "w" } else { "r" }, Some(argv[i].clone()))
        } else {
            params.push(a.to_string());
            ("", None)
        };
        if let Some(v) = val {
            let n: usize = v.parse().unwrap_or_else(|_| bad(&format!("bad value '{}'", v)));
            if n < 1 {
                bad(&format!("bad value '{}'", v));
            }
            if key == "w" {
                workers = n
            } else {
                reps = n
            }
        }
        i += 1;
    }
    Args { workers, reps, params }
}

pub fn param(a: &Args, i: usize, usage: &str) -> i64 {
    match a.params.get(i).map(|s| s.parse::<i64>()) {
        Some(Ok(v)) => v,
        _ => {
            eprintln!("missing or bad parameter {}; usage: --workers N [--reps R] {}", i + 1, usage);
            std::process::exit(2)
        }
    }
}

pub fn pool(workers: usize) -> rayon::ThreadPool {
    let p = rayon::ThreadPoolBuilder::new().num_threads(workers).build().expect("rayon pool");
    p.install(|| rayon::join(|| black_box(1), || black_box(2))); // start the workers
    p
}

/// Times f (the kernel) and returns (seconds, result).
pub fn time<R>(f: impl FnOnce() -> R) -> (f64, R) {
    let t0 = Instant::now();
    let r = f();
    (t0.elapsed().as_secs_f64(), r)
}

/// Prints the contract's JSON line and exits 0 (ok) or 1 (FAIL).
pub fn report(seconds: f64, ok: bool, result: i64, tasks: Option<i64>) -> ! {
    let t = tasks.map_or("null".to_string(), |t| t.to_string());
    println!(
        "{{\"seconds\": {:.6}, \"check\": \"{}\", \"result\": {}, \"tasks\": {}}}",
        seconds,
        if ok { "ok" } else { "FAIL" },
        result,
        t
    );
    std::process::exit(if ok { 0 } else { 1 })
}

/// An empty loop of n iterations that the compiler keeps: on x86-64 the same asm loop as
/// bench_spin in bench/common/bench.h (32-byte aligned, one register, no memory reference), so the
/// leaves of every system take the same time; elsewhere black_box (which goes through memory).
#[inline]
pub fn spin(n: i64) {
    #[cfg(target_arch = "x86_64")]
    if n > 0 {
        let mut i = n;
        unsafe {
            std::arch::asm!(".p2align 5", "2:", "sub {0}, 1", "jnz 2b", inout(reg) i,
                            options(nomem, nostack));
        }
        black_box(i);
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let mut i = 0i64;
        while i < n {
            i = black_box(i) + 1;
        }
    }
}
