//! stress, Rayon: stress --workers N [--reps R] h L reps   (rayon::join per inner node)
use merino_bench_rayon::*;

fn tree(h: i32, l: i64) -> i64 {
    if h == 0 {
        spin(l);
        return 1;
    }
    let (a, b) = rayon::join(|| tree(h - 1, l), || tree(h - 1, l));
    a + b
}

fn main() {
    let usage = "h L reps";
    let a = args(usage);
    let h = param(&a, 0, usage) as i32;
    let l = param(&a, 1, usage);
    let trees = param(&a, 2, usage);
    let p = pool(a.workers);
    let n = trees * a.reps as i64;
    let (secs, sum) = time(|| p.install(|| (0..n).map(|_| tree(h, l)).sum::<i64>()));
    report(secs, sum == (1i64 << h) * n, sum, Some(((1i64 << h) - 1) * n));
}
