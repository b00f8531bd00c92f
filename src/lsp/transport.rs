//! JSON-RPC over stdio with `Content-Length` framing.
//!
//! `lsp_server::Connection::stdio` ends its reader thread at the first
//! malformed message; this reader instead reports the message as malformed
//! and goes on with the next frame, bounds header lines and bodies, and
//! never panics. Messages themselves are `lsp_server::Message`s.

use std::io::{self, BufRead, Read, Write};
use std::sync::mpsc::Sender;

use lsp_server::Message;

use super::Event;

/// Longest header line accepted.
const MAX_HEADER_LINE: u64 = 8 << 10;
/// Largest message body accepted.
const MAX_BODY: usize = 256 << 20;

/// What one frame held.
#[derive(Debug)]
pub enum Frame {
    Message(Message),
    /// A frame or payload that is not a JSON-RPC message; the reason.
    Malformed(String),
}

/// Reads one frame; `Ok(None)` at the end of the input.
pub fn read_frame(r: &mut impl BufRead) -> io::Result<Option<Frame>> {
    Ok(read_body(r)?.map(|body| match body {
        Ok(body) => match serde_json::from_slice::<Message>(&body) {
            Ok(m) => Frame::Message(m),
            Err(e) => Frame::Malformed(format!("not a JSON-RPC message: {e}")),
        },
        Err(why) => Frame::Malformed(why),
    }))
}

/// Reads the body of one `Content-Length` frame (the framing LSP and the
/// Debug Adapter Protocol share): `Ok(None)` at the end of the input,
/// `Err(why)` inside for a frame that is malformed (the next read starts
/// after it).
pub fn read_body(r: &mut impl BufRead) -> io::Result<Option<Result<Vec<u8>, String>>> {
    let mut length: Option<usize> = None;
    let mut seen_header = false;
    let mut line = Vec::new();
    loop {
        line.clear();
        let n = r
            .by_ref()
            .take(MAX_HEADER_LINE)
            .read_until(b'\n', &mut line)?;
        if n == 0 {
            return Ok(None);
        }
        if line.last() != Some(&b'\n') {
            if (n as u64) < MAX_HEADER_LINE {
                // The input ended inside a header line.
                return Ok(None);
            }
            return Ok(Some(Err("header line too long".to_string())));
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_end_matches(['\r', '\n']);
        if text.is_empty() {
            if seen_header {
                break;
            }
            // Blank lines between frames: skip.
            continue;
        }
        seen_header = true;
        let Some((name, value)) = text.split_once(':') else {
            return Ok(Some(Err(format!("malformed header line {text:?}"))));
        };
        if name.trim().eq_ignore_ascii_case("Content-Length") {
            match value.trim().parse::<usize>() {
                Ok(n) if n <= MAX_BODY => length = Some(n),
                Ok(n) => {
                    return Ok(Some(Err(format!("message of {n} bytes is too large"))));
                }
                Err(_) => {
                    return Ok(Some(Err(format!("bad Content-Length {:?}", value.trim()))));
                }
            }
        }
    }
    let Some(length) = length else {
        return Ok(Some(Err("no Content-Length header".to_string())));
    };
    let mut body = vec![0u8; length];
    match r.read_exact(&mut body) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e),
    }
    Ok(Some(Ok(body)))
}

/// Reads stdin on a thread of its own, sending every frame to the server;
/// ends with `Event::Closed` at the end of the input or on a read error.
pub fn spawn_reader(tx: Sender<Event>) -> io::Result<()> {
    std::thread::Builder::new()
        .name("sift-lsp-reader".to_string())
        .spawn(move || {
            let stdin = io::stdin();
            let mut input = stdin.lock();
            loop {
                let event = match read_frame(&mut input) {
                    Ok(Some(Frame::Message(m))) => Event::Message(m),
                    Ok(Some(Frame::Malformed(why))) => Event::Malformed(why),
                    Ok(None) => Event::Closed(None),
                    Err(e) => Event::Closed(Some(e.to_string())),
                };
                let last = matches!(event, Event::Closed(_));
                if tx.send(event).is_err() || last {
                    return;
                }
            }
        })?;
    Ok(())
}

/// Writes messages to stdout, the only thing that ever does.
pub struct Output {
    out: io::Stdout,
}

impl Output {
    pub fn new() -> Output {
        Output { out: io::stdout() }
    }

    pub fn send(&mut self, msg: impl Into<Message>) -> io::Result<()> {
        let mut out = self.out.lock();
        msg.into().write(&mut out)
    }

    /// A raw JSON-RPC object (for replies lsp_server cannot express, such as
    /// an error with a null id).
    pub fn send_raw(&mut self, value: &serde_json::Value) -> io::Result<()> {
        let text = value.to_string();
        let mut out = self.out.lock();
        write!(out, "Content-Length: {}\r\n\r\n{text}", text.len())?;
        out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(input: &[u8]) -> Vec<String> {
        let mut r = io::BufReader::new(input);
        let mut out = Vec::new();
        while let Ok(Some(f)) = read_frame(&mut r) {
            out.push(match f {
                Frame::Message(Message::Request(q)) => format!("request {}", q.method),
                Frame::Message(Message::Notification(n)) => format!("notification {}", n.method),
                Frame::Message(Message::Response(_)) => "response".to_string(),
                Frame::Malformed(_) => "malformed".to_string(),
            });
        }
        out
    }

    #[test]
    fn frames_and_resynchronisation() {
        let ok = |body: &str| format!("Content-Length: {}\r\n\r\n{body}", body.len());
        let mut input = String::new();
        input.push_str(&ok(r#"{"jsonrpc":"2.0","id":1,"method":"a"}"#));
        input.push_str("garbage line\r\n\r\n");
        input.push_str(&ok("{not json"));
        input.push_str(&ok(r#"{"jsonrpc":"2.0","method":"b"}"#));
        input.push_str("Content-Length: 99999999999999999999\r\n\r\n");
        input.push_str(&ok(r#"{"jsonrpc":"2.0","method":"c"}"#));
        input.push_str("Content-Length: 50\r\n\r\n{\"truncated\"");
        assert_eq!(
            frames(input.as_bytes()),
            [
                "request a",
                "malformed",
                "malformed",
                "notification b",
                "malformed",
                "notification c"
            ]
        );
    }
}
