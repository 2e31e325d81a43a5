//! GNU sed scripts, checked command by command.

/// Checks a GNU sed script command by command; `Err` says why it is refused.
pub fn sed_script_check(script: &str) -> std::result::Result<(), String> {
    let s: Vec<char> = script.chars().collect();
    let mut i = 0;
    let n = s.len();
    // Scans a delimited part (regex or replacement) starting after the opening delimiter;
    // returns the index after the closing one.
    let scan = |mut i: usize, d: char| -> std::result::Result<usize, String> {
        while i < n {
            match s[i] {
                '\\' => i += 2,
                c if c == d => return Ok(i + 1),
                '\n' if d != '\n' => return Err("a newline inside a regex or replacement".into()),
                _ => i += 1,
            }
        }
        Err("an unterminated regex or replacement".into())
    };
    let skip_ws0 = |mut i: usize| {
        while i < n && (s[i] == ' ' || s[i] == '\t') {
            i += 1;
        }
        i
    };
    let to_eol = |mut i: usize| {
        while i < n && s[i] != '\n' {
            i += 1;
        }
        i
    };
    // A label ends where GNU sed ends it at the latest (whitespace, `;`, `}`, `#`, newline):
    // ending it early only makes more of the script checked as commands.
    let label_end = |mut i: usize| {
        i = skip_ws0(i);
        while i < n && !matches!(s[i], '\n' | ';' | '}' | '#' | ' ' | '\t') {
            i += 1;
        }
        i
    };
    let skip_ws = |mut i: usize| {
        while i < n && (s[i] == ' ' || s[i] == '\t') {
            i += 1;
        }
        i
    };
    // One address; returns the index after it.
    let address = |mut i: usize| -> std::result::Result<usize, String> {
        if i >= n {
            return Ok(i);
        }
        match s[i] {
            c if c.is_ascii_digit() => {
                while i < n && (s[i].is_ascii_digit() || s[i] == '~') {
                    i += 1;
                }
                Ok(i)
            }
            '$' => Ok(i + 1),
            '+' | '~' => {
                i += 1;
                while i < n && s[i].is_ascii_digit() {
                    i += 1;
                }
                Ok(i)
            }
            '/' | '\\' => {
                let d = if s[i] == '\\' {
                    i += 1;
                    *s.get(i).ok_or("a truncated address")?
                } else {
                    '/'
                };
                if d == '\n' || d == '\\' {
                    return Err("an address delimiter that is a newline or backslash".into());
                }
                i = scan(i + 1, d)?;
                while i < n && (s[i] == 'I' || s[i] == 'M') {
                    i += 1;
                }
                Ok(i)
            }
            _ => Ok(i),
        }
    };
    while i < n {
        // Separators and whitespace between commands.
        while i < n && matches!(s[i], ' ' | '\t' | '\n' | ';') {
            i += 1;
        }
        if i >= n {
            break;
        }
        if s[i] == '#' {
            i = to_eol(i);
            continue;
        }
        let start = i;
        i = address(i)?;
        if i > start {
            i = skip_ws(i);
            if i < n && s[i] == ',' {
                i = skip_ws(i + 1);
                let before = i;
                i = address(i)?;
                if i == before {
                    return Err("a second address is missing".into());
                }
            }
        }
        i = skip_ws(i);
        while i < n && s[i] == '!' {
            i = skip_ws(i + 1);
        }
        let Some(&cmd) = s.get(i) else {
            return Err("an address without a command".into());
        };
        i += 1;
        match cmd {
            '{' | '}' | '=' | 'd' | 'D' | 'g' | 'G' | 'h' | 'H' | 'n' | 'N' | 'p' | 'P' | 'x'
            | 'z' | 'F' => {}
            'q' | 'Q' | 'l' | 'L' => {
                i = skip_ws(i);
                while i < n && s[i].is_ascii_digit() {
                    i += 1;
                }
            }
            ':' | 'b' | 't' | 'T' => i = label_end(i),
            'v' => i = label_end(i),
            '#' => i = to_eol(i),
            'a' | 'i' | 'c' => {
                // Text to the end of the line; a backslash-newline continues it.
                while i < n && s[i] != '\n' {
                    i += if s[i] == '\\' { 2 } else { 1 };
                }
            }
            's' => {
                let d = *s.get(i).ok_or("a truncated s command")?;
                if d == '\n' || d == '\\' {
                    return Err("an s delimiter that is a newline or backslash".into());
                }
                i = scan(i + 1, d)?;
                i = scan(i, d)?;
                while i < n && !matches!(s[i], ';' | '\n' | '}' | '#' | ' ' | '\t') {
                    match s[i] {
                        'g' | 'p' | 'i' | 'I' | 'm' | 'M' => {}
                        c if c.is_ascii_digit() => {}
                        'e' => return Err("s///e runs the pattern space as a command".into()),
                        'w' | 'W' => return Err("s///w writes a file".into()),
                        c => return Err(format!("unknown s flag {c:?}")),
                    }
                    i += 1;
                }
            }
            'y' => {
                let d = *s.get(i).ok_or("a truncated y command")?;
                if d == '\n' || d == '\\' {
                    return Err("a y delimiter that is a newline or backslash".into());
                }
                i = scan(i + 1, d)?;
                i = scan(i, d)?;
            }
            'e' => return Err("the e command runs a program".into()),
            'w' | 'W' => return Err(format!("the {cmd} command writes a file")),
            'r' | 'R' => return Err(format!("the {cmd} command reads a file bob cannot vet")),
            c => return Err(format!("unknown or unchecked command {c:?}")),
        }
    }
    Ok(())
}
