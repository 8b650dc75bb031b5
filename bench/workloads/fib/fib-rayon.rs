//! fib, Rayon: fib --workers N [--reps R] n [cutoff]   (rayon::join per call; below the cutoff serial)
use merino_bench_rayon::*;
use std::hint::black_box;

fn fib_serial(n: i32) -> i64 {
    if n < 2 {
        n as i64
    } else {
        fib_serial(n - 1) + fib_serial(n - 2)
    }
}

fn fib(n: i32, cutoff: i32) -> i64 {
    if n < 2 {
        return n as i64;
    }
    if n < cutoff {
        return fib_serial(n);
    }
    let (b, a) = rayon::join(|| fib(n - 1, cutoff), || fib(n - 2, cutoff));
    a + b
}

fn tasks(n: i32, cutoff: i32) -> i64 {
    let c = cutoff.max(2);
    if n < c {
        return 0;
    }
    let mut t = vec![0i64; n as usize + 1];
    for k in c..=n {
        t[k as usize] = 1 + t[k as usize - 1] + if k >= 2 { t[k as usize - 2] } else { 0 };
    }
    t[n as usize]
}

fn main() {
    let usage = "n [cutoff]";
    let a = args(usage);
    let n = param(&a, 0, usage) as i32;
    let cutoff = if a.params.len() > 1 { param(&a, 1, usage) as i32 } else { 0 };
    let p = pool(a.workers);
    let (secs, r) = time(|| {
        p.install(|| {
            let mut r = 0;
            for _ in 0..a.reps {
                r = black_box(fib(n, cutoff));
            }
            r
        })
    });
    let (mut x, mut y) = (0i64, 1i64);
    for _ in 0..n {
        let t = x + y;
        x = y;
        y = t;
    }
    report(secs, r == x, r, Some(tasks(n, cutoff) * a.reps as i64));
}
