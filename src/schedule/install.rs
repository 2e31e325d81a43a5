//! What `bob schedule install` prints: a crontab line, or systemd service and timer units,
//! that run `bob schedule tick` every minute with absolute paths.

use std::path::Path;

/// Quotes a path for a POSIX shell (crontab lines run through `sh`).
fn sh_quote(p: &Path) -> String {
    let s = p.display().to_string();
    if !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/._-+:@,".contains(&b))
    {
        s
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// Quotes a path for a systemd `ExecStart=` line.
fn systemd_quote(p: &Path) -> String {
    let s = p.display().to_string();
    if s.bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"/._-+:@,".contains(&b))
    {
        s
    } else {
        format!(
            "\"{}\"",
            s.replace('\\', r"\\")
                .replace('"', "\\\"")
                .replace('%', "%%")
        )
    }
}

/// One crontab line: `tick` every minute, its JSON and errors appended to
/// `<home>/schedule/cron.log`.
pub fn cron_line(bob: &Path, home: &Path) -> String {
    let log = home.join("schedule").join("cron.log");
    format!(
        "* * * * * {} --home {} schedule tick >> {} 2>&1\n",
        sh_quote(bob),
        sh_quote(home),
        sh_quote(&log)
    )
}

/// `(bob-schedule.service, bob-schedule.timer)`: a oneshot service running `tick`, started
/// every minute by the timer.
pub fn systemd_units(bob: &Path, home: &Path) -> (String, String) {
    let service = format!(
        "[Unit]\n\
         Description=bob scheduler tick (runs due jobs)\n\
         \n\
         [Service]\n\
         Type=oneshot\n\
         ExecStart={} --home {} schedule tick\n",
        systemd_quote(bob),
        systemd_quote(home)
    );
    let timer = "[Unit]\n\
                 Description=Run the bob scheduler tick every minute\n\
                 \n\
                 [Timer]\n\
                 OnCalendar=*-*-* *:*:00\n\
                 AccuracySec=1s\n\
                 Unit=bob-schedule.service\n\
                 \n\
                 [Install]\n\
                 WantedBy=timers.target\n"
        .to_string();
    (service, timer)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cron_line_quotes_paths_with_spaces() {
        let l = cron_line(Path::new("/usr/bin/bob"), Path::new("/srv/my home"));
        assert_eq!(
            l,
            "* * * * * /usr/bin/bob --home '/srv/my home' schedule tick >> '/srv/my home/schedule/cron.log' 2>&1\n"
        );
    }

    #[test]
    fn systemd_units_name_the_binary_and_home() {
        let (s, t) = systemd_units(Path::new("/usr/bin/bob"), Path::new("/var/lib/bob"));
        assert!(s.contains("ExecStart=/usr/bin/bob --home /var/lib/bob schedule tick\n"));
        assert!(t.contains("OnCalendar=*-*-* *:*:00"));
    }
}
