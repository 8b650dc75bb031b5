//! nqueens, Rayon: nqueens --workers N [--reps R] n
//! Bit-mask search as in the C versions: the children of a node are split in halves with
//! rayon::join (k children, k - 1 joins), so the number of tasks matches the C versions' spawns.
use merino_bench_rayon::*;
use std::hint::black_box;

const KNOWN: [(i64, i64); 16] = [
    (1, 0), (1, 0), (0, 1), (0, 2), (2, 5), (10, 13), (4, 49), (40, 193), (92, 735), (352, 2935),
    (724, 12773), (2680, 61075), (14200, 314729), (73712, 1716651), (365596, 10030691),
    (2279184, 62518771),
];

fn serial(all: u32, cols: u32, ld: u32, rd: u32) -> i64 {
    if cols == all {
        return 1;
    }
    let mut avail = all & !(cols | ld | rd);
    let mut c = 0;
    while avail != 0 {
        let bit = avail & avail.wrapping_neg();
        avail -= bit;
        c += serial(all, cols | bit, (ld | bit) << 1, (rd | bit) >> 1);
    }
    c
}

fn children(all: u32, cols: u32, ld: u32, rd: u32, out: &mut [(u32, u32, u32); 32]) -> usize {
    let mut avail = all & !(cols | ld | rd);
    let mut k = 0;
    while avail != 0 {
        let bit = avail & avail.wrapping_neg();
        avail -= bit;
        out[k] = (cols | bit, (ld | bit) << 1, (rd | bit) >> 1);
        k += 1;
    }
    k
}

fn range(all: u32, ch: &[(u32, u32, u32)]) -> i64 {
    if ch.len() == 1 {
        let (c, l, r) = ch[0];
        return nq(all, c, l, r);
    }
    let (x, y) = ch.split_at(ch.len() / 2);
    let (a, b) = rayon::join(|| range(all, x), || range(all, y));
    a + b
}

fn nq(all: u32, cols: u32, ld: u32, rd: u32) -> i64 {
    if cols == all {
        return 1;
    }
    let mut ch = [(0u32, 0u32, 0u32); 32];
    let k = children(all, cols, ld, rd, &mut ch);
    if k == 0 {
        return 0;
    }
    range(all, &ch[..k])
}

fn main() {
    let usage = "n";
    let a = args(usage);
    let n = param(&a, 0, usage);
    if !(1..=31).contains(&n) {
        eprintln!("n must be 1..31");
        std::process::exit(2);
    }
    let all = ((1u64 << n) - 1) as u32;
    let p = pool(a.workers);
    let (secs, r) = time(|| {
        p.install(|| {
            let mut r = 0;
            for _ in 0..a.reps {
                r = black_box(nq(all, 0, 0, 0));
            }
            r
        })
    });
    let (expected, tasks) = if n <= 15 {
        (KNOWN[n as usize].0, Some(KNOWN[n as usize].1 * a.reps as i64))
    } else {
        (serial(all, 0, 0, 0), None)
    };
    report(secs, r == expected, r, tasks);
}
