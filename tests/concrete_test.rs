//! `sift test`: one row per path, inputs from a model of the path, the
//! outcome of running them.

use std::process::Command;

use serde_json::Value;

fn sift(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_sift"))
        .args(args)
        .output()
        .expect("run sift")
}

fn paths_file() -> String {
    format!("{}/tests/concrete/paths.sift", env!("CARGO_MANIFEST_DIR"))
}

fn json_rows(method: &str, extra: &[&str]) -> (Option<i32>, Vec<Value>) {
    let file = paths_file();
    let mut args = vec!["test", &file, "--method", method, "--json"];
    args.extend(extra);
    let o = sift(&args);
    let doc: Value = serde_json::from_slice(&o.stdout).expect("JSON");
    (
        o.status.code(),
        doc["paths"].as_array().expect("paths").clone(),
    )
}

fn decisions(row: &Value) -> Vec<(u64, bool)> {
    row["decisions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["line"].as_u64().unwrap(), d["taken"].as_bool().unwrap()))
        .collect()
}

#[test]
fn three_independent_ifs_give_eight_paths_with_matching_inputs() {
    let (code, rows) = json_rows("T.three", &[]);
    assert_eq!(code, Some(0));
    assert_eq!(rows.len(), 8);
    let mut seen = Vec::new();
    for row in &rows {
        let d = decisions(row);
        assert_eq!(d.iter().map(|x| x.0).collect::<Vec<_>>(), vec![4, 5, 6]);
        assert_eq!(row["outcome"], "ok");
        assert_eq!(row["line"], Value::Null);
        // The inputs take exactly the branches the row lists.
        let input = |k: &str| row["inputs"][k].as_str().unwrap().parse::<i64>().unwrap();
        let expected = [input("a") > 0, input("b") > 0, input("c") > 0];
        assert_eq!(d.iter().map(|x| x.1).collect::<Vec<_>>(), expected);
        let n = expected[0] as i64 + 2 * expected[1] as i64 + 4 * expected[2] as i64;
        assert_eq!(row["detail"], format!("returned {n}"));
        seen.push(d);
    }
    seen.sort();
    seen.dedup();
    assert_eq!(seen.len(), 8);
}

#[test]
fn loops_are_unrolled_k_times() {
    let (code, rows) = json_rows("T.sum", &["--unroll", "2"]);
    assert_eq!(code, Some(0));
    let shapes: Vec<Vec<bool>> = rows
        .iter()
        .map(|r| decisions(r).iter().map(|d| d.1).collect())
        .collect();
    assert_eq!(
        shapes,
        vec![
            vec![true, true, true],
            vec![true, true, false],
            vec![true, false],
            vec![false],
        ]
    );
    let ns: Vec<&str> = rows
        .iter()
        .map(|r| r["inputs"]["n"].as_str().unwrap())
        .collect();
    assert_eq!(&ns[1..], &["2", "1", "0"]);
}

#[test]
fn a_path_that_fails_gets_inputs_that_make_it_fail() {
    let (code, rows) = json_rows("T.risky", &[]);
    assert_eq!(code, Some(1));
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["outcome"], "division.by.zero");
    assert_eq!(rows[0]["line"], 16);
    assert_eq!(rows[0]["inputs"]["a"], "7");
    assert_eq!(rows[1]["outcome"], "ok");
    assert_eq!(decisions(&rows[1]), vec![(16, false)]);
}

#[test]
fn object_inputs_and_postcondition_failures() {
    let (code, rows) = json_rows("Cell.inc", &[]);
    assert_eq!(code, Some(1));
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["outcome"], "postcondition.failed");
    assert_eq!(rows[0]["line"], 22);
    assert_eq!(rows[0]["inputs"]["this"], "Cell#1");
    let x: i64 = rows[0]["inputs"]["Cell#1.x"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(x > 10);
    assert_eq!(rows[1]["outcome"], "ok");
}

#[test]
fn text_rows_and_every_example() {
    let o = sift(&["test", &paths_file(), "--method", "T.risky"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("T.risky path 1: [line 16 true] inputs: a = 7 -> division.by.zero at line 16"),
        "{out}"
    );
    assert!(out.ends_with("paths.sift: 2 paths, 1 failed\n"), "{out}");
    for (file, rows) in [
        ("cell.sift", 3),
        ("cell_inferred.sift", 3),
        ("list.sift", 7),
        ("list_inferred.sift", 7),
        ("swap.sift", 4),
        ("join.sift", 257),
        ("counter.sift", 9),
    ] {
        let path = format!("{}/examples/{file}", env!("CARGO_MANIFEST_DIR"));
        let o = sift(&["test", &path, "--json"]);
        assert_eq!(o.status.code(), Some(0), "{file}");
        let doc: Value = serde_json::from_slice(&o.stdout).expect("JSON");
        let all = doc["paths"].as_array().unwrap();
        assert_eq!(all.len(), rows, "{file}");
        assert!(all.iter().all(|r| r["outcome"] == "ok"), "{file}");
    }
}

#[test]
fn bad_usage_exits_two() {
    let o = sift(&["test", &paths_file(), "--method", "T.nope"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no method `T.nope`"));
}
