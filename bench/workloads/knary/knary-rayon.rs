//! knary, Rayon: knary --workers N [--reps R] h d s [iters]   (the Hood paper's knary, workloads/knary/knary.h:
//! at each node an empty loop of iters, then d children, the first s serially, the rest in parallel
//! with rayon::scope; result = the number of nodes)
use merino_bench_rayon::*;
use std::sync::atomic::{AtomicI64, Ordering};

fn kn(h: i64, d: i64, s: i64, iters: i64) -> i64 {
    spin(iters);
    if h == 1 {
        return 1;
    }
    let mut n = 1;
    for _ in 0..s {
        n += kn(h - 1, d, s, iters);
    }
    if s == d {
        return n;
    }
    let total = AtomicI64::new(0);
    rayon::scope(|sc| {
        for _ in s..d - 1 {
            let t = &total;
            sc.spawn(move |_| {
                t.fetch_add(kn(h - 1, d, s, iters), Ordering::Relaxed);
            });
        }
        total.fetch_add(kn(h - 1, d, s, iters), Ordering::Relaxed);
    });
    n + total.load(Ordering::Relaxed)
}

fn main() {
    let usage = "h d s [iters]";
    let a = args(usage);
    let h = param(&a, 0, usage);
    let d = param(&a, 1, usage);
    let s = param(&a, 2, usage);
    let iters = if a.params.len() > 3 { param(&a, 3, usage) } else { 400 };
    if h < 1 || d < 1 || d > 64 || s < 0 || s > d || iters < 0 {
        eprintln!("h >= 1, 1 <= d <= 64, 0 <= s <= d");
        std::process::exit(2);
    }
    let p = pool(a.workers);
    let (secs, r) = time(|| {
        p.install(|| {
            let mut r = 0;
            for _ in 0..a.reps {
                r = std::hint::black_box(kn(h, d, s, iters));
            }
            r
        })
    });
    let (mut nodes, mut level) = (0i64, 1i64);
    for _ in 0..h {
        nodes += level;
        level *= d;
    }
    let par = d - s - 1;
    let tasks = if h > 1 && par > 0 { (nodes - level / d) * par } else { 0 };
    report(secs, r == nodes, r, Some(tasks * a.reps as i64));
}
