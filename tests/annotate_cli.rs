//! `parcels annotate` as a process, without a browser: start-up errors name what is wrong, and
//! the running server answers over real HTTP on 127.0.0.1 with its CSP header, refusing other
//! host names (DNS rebinding) and changes without the run's token.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn temp(name: &str) -> TempDir {
    let dir = std::env::temp_dir().join(format!("parcels-annotate-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("news/sub")).expect("temp dir");
    TempDir(dir)
}

fn parcels() -> Command {
    Command::new(env!("CARGO_BIN_EXE_parcels"))
}

/// Sends a raw request, answers the whole response as text.
fn raw(port: u16, request: &str) -> String {
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(20))).expect("timeout");
    s.write_all(request.as_bytes()).expect("write");
    let mut out = String::new();
    s.read_to_string(&mut out).expect("read");
    out
}

#[test]
fn start_up_errors_name_the_problem() {
    let t = temp("errors");
    let out = parcels().args(["annotate", "--corpus"]).arg(t.0.join("missing")).output().expect("run");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("missing"), "{}", String::from_utf8_lossy(&out.stderr));
    std::fs::write(t.0.join("news/a.html"), "<p>a</p>").expect("page");
    std::fs::write(t.0.join("news/sub/a.html"), "<p>b</p>").expect("page");
    let out = parcels().args(["annotate", "--corpus"]).arg(t.0.join("news")).output().expect("run");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert!(err.contains("a.json") && err.contains("--pages"), "{err}");
}

#[test]
fn the_server_answers_only_its_own_host_and_token() {
    let t = temp("server");
    std::fs::write(t.0.join("news/a.html"), "<h1>Title</h1><script>alert(1)</script><p>Text</p>").expect("page");
    let mut child = parcels()
        .args(["annotate", "--port", "0", "--corpus"])
        .arg(t.0.join("news"))
        .arg("--labels")
        .arg(t.0.join("labels"))
        .stdout(Stdio::piped())
        .spawn()
        .expect("start");
    let stdout = child.stdout.take().expect("stdout");
    let _server = Killed(child);
    let line = BufReader::new(stdout).lines().map_while(Result::ok).find(|l| l.starts_with("open ")).expect("URL line");
    let port: u16 =
        line.trim_start_matches("open http://127.0.0.1:").split('/').next().and_then(|p| p.parse().ok()).unwrap_or_else(|| panic!("no port in {line:?}"));

    let view = raw(port, &format!("GET /page/0 HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n"));
    assert!(view.starts_with("HTTP/1.1 200"), "{view}");
    assert!(view.contains("Content-Security-Policy: default-src 'none'; script-src 'nonce-"), "{view}");
    assert!(!view.contains("alert(1)"));
    let rebound = raw(port, &format!("GET /page/0 HTTP/1.1\r\nHost: attacker.example:{port}\r\n\r\n"));
    assert!(rebound.starts_with("HTTP/1.1 421"), "{rebound}");
    let body = r#"{"page":0,"block":0,"label":"title"}"#;
    let forged = raw(
        port,
        &format!("POST /api/label HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}", body.len()),
    );
    assert!(forged.starts_with("HTTP/1.1 403"), "{forged}");
    assert!(!Path::new(&t.0.join("labels")).exists(), "a refused change wrote a file");
}
