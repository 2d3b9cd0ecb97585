//! Source texts the server benchmarks write (`memory`, `peers`): the same files, so that their
//! memory figures compare.

/// About 100 KB of valid `ext` source (`js`, `py`, `ts`, anything else: Rust), cut at a line
/// end.
pub fn hundred_kb(ext: &str) -> String {
    let line = |k: usize| match ext {
        "js" => format!("function f{k}(a) {{ const x = [a, {k}, 'str{k}']; return x.map(v => v + 1); }}\n"),
        "py" => format!("def f{k}(a):\n    x = [a, {k}, 'str{k}']\n    return [v for v in x]\n\n"),
        "ts" => format!(
            "export function f{k}(a: number): number[] {{ const x: number[] = [a, {k}]; return x; }}\n"
        ),
        _ => format!("pub fn f{k}(a: u32) -> Vec<u32> {{ let x = vec![a, {k}]; x }}\n"),
    };
    let mut text = String::new();
    let mut k = 0;
    while text.len() < 100_000 {
        text.push_str(&line(k));
        k += 1;
    }
    let end = text[..100_000].rfind('\n').map_or(text.len(), |i| i + 1);
    text.truncate(end);
    text
}
