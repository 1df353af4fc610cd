use super::*;

fn plain(source: &str, width: usize) -> Vec<String> {
    render(source, width)
        .iter()
        .map(|l| {
            l.spans
                .iter()
                .map(|s| s.content.as_ref())
                .collect::<String>()
        })
        .collect()
}

#[test]
fn paragraphs_headings_and_emphasis() {
    let lines = render("# Title\n\nSome *soft* and **strong** text.", 40);
    let text: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    assert_eq!(text, ["Title", "", "Some soft and strong text."]);
    let strong = lines[2]
        .spans
        .iter()
        .find(|s| s.content == "strong")
        .unwrap();
    assert!(strong.style.add_modifier.contains(Modifier::BOLD));
}

#[test]
fn nested_lists_hang_under_their_markers() {
    let got = plain("- one two three four\n  - nested item here\n2. x\n", 14);
    assert_eq!(
        got,
        [
            "• one two",
            "  three four",
            "  ◦ nested",
            "    item here",
            "",
            "2. x"
        ]
    );
}

#[test]
fn ordered_and_task_lists() {
    let got = plain("3. a\n4. b\n\n- [x] done\n- [ ] todo", 30);
    assert_eq!(got, ["3. a", "4. b", "", "• [x] done", "• [ ] todo"]);
}

#[test]
fn fenced_code_has_a_language_label_and_wraps_hard() {
    let got = plain("```rust\nfn main() { println!(\"hi\"); }\n```", 20);
    assert_eq!(got, ["┌ rust", "│ fn main() { printl", "┆ n!(\"hi\"); }"]);
}

#[test]
fn links_show_their_address_unless_it_is_the_text() {
    assert_eq!(
        plain("[docs](https://x.dev) and <https://y.dev>", 60),
        ["docs (https://x.dev) and https://y.dev"]
    );
}

#[test]
fn tables_align_when_they_fit_and_degrade_when_they_do_not() {
    let source = "| Name | Status |\n|---|---|\n| build | ok |\n| tests | failed |";
    assert_eq!(
        plain(source, 40),
        [
            "Name  │ Status",
            "──────┼───────",
            "build │ ok",
            "tests │ failed"
        ]
    );
    assert_eq!(
        plain(source, 12),
        [
            "• build",
            "  Status: ok",
            "• tests",
            "  Status:",
            "  failed"
        ]
    );
}

#[test]
fn quotes_and_rules() {
    assert_eq!(
        plain("> quoted words here\n\n---\n\nafter", 12),
        ["│ quoted", "│ words here", "", "────────────", "", "after"]
    );
}

#[test]
fn no_line_exceeds_the_width_and_partial_input_renders() {
    let source = "# A very long heading that must wrap\n\n- item with `inline code` and a [link](https://example.com/a/very/long/path)\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```\nunterminated code that is long";
    for width in [8, 13, 20, 40, 80] {
        for line in render(source, width) {
            assert!(line.width() <= width.max(8), "width {width}: {line:?}");
        }
    }
    assert_eq!(plain("```py\nx = 1", 20), ["┌ py", "│ x = 1"]);
}
