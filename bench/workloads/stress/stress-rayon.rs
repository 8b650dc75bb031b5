//! stress, Rayon: stress --workers N [--reps R] h L reps [per_tree]   (rayon::join per inner node;
//! the trees in one pool.install, or with per_tree = 1 one pool.install per tree)
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
    let usage = "h L reps [per_tree]";
    let a = args(usage);
    let h = param(&a, 0, usage) as i32;
    let l = param(&a, 1, usage);
    let trees = param(&a, 2, usage);
    let per_tree = if a.params.len() > 3 { param(&a, 3, usage) } else { 0 };
    if a.params.len() > 4 || !(0..=1).contains(&per_tree) {
        eprintln!("usage: --workers N [--reps R] {}", usage);
        std::process::exit(2);
    }
    let p = pool(a.workers);
    let n = trees * a.reps as i64;
    let (secs, sum) = if per_tree == 1 {
        time(|| (0..n).map(|_| p.install(|| tree(h, l))).sum::<i64>())
    } else {
        time(|| p.install(|| (0..n).map(|_| tree(h, l)).sum::<i64>()))
    };
    report(secs, sum == (1i64 << h) * n, sum, Some(((1i64 << h) - 1) * n));
}
