//! The Debug Adapter Protocol's messages, as far as `sift dap` uses them.
//! Requests come in as JSON objects and are read field by field (clients
//! differ in which optional fields they send, and a missing or mistyped
//! field must be an error response, not a dropped message); responses and
//! events go out as JSON values. No crate is used for the types: the ones
//! on crates.io are alpha releases or years behind the protocol, and
//! `sift dap` needs a dozen fields of it.

use std::io::{self, Write};

use serde_json::{Value, json};

/// One request from the client.
#[derive(Clone, Debug)]
pub struct Request {
    pub seq: i64,
    pub command: String,
    pub arguments: Value,
}

/// A message that is not a request the adapter can answer: why, and the
/// request's `seq` and command when it had them (for an error response).
#[derive(Debug)]
pub struct Bad {
    pub why: String,
    pub seq: Option<(i64, String)>,
}

/// Parses one message body.
pub fn parse(body: &[u8]) -> Result<Request, Bad> {
    let bad = |why: String| Bad { why, seq: None };
    let v: Value =
        serde_json::from_slice(body).map_err(|e| bad(format!("not a JSON message: {e}")))?;
    let Some(obj) = v.as_object() else {
        return Err(bad("a message must be a JSON object".to_string()));
    };
    let seq = obj.get("seq").and_then(Value::as_i64);
    let command = obj.get("command").and_then(Value::as_str);
    match obj.get("type").and_then(Value::as_str) {
        Some("request") => {}
        // A response to a reverse request: `sift dap` sends none.
        Some("response") => return Err(bad("unexpected response from the client".to_string())),
        Some(other) => return Err(bad(format!("unexpected message type {other:?}"))),
        None => return Err(bad("the message has no \"type\"".to_string())),
    }
    let (Some(seq), Some(command)) = (seq, command) else {
        return Err(bad(
            "a request needs a numeric \"seq\" and a \"command\"".to_string()
        ));
    };
    let mut arguments = obj.get("arguments").cloned().unwrap_or(Value::Null);
    // Lua clients encode an empty table as `[]`.
    if arguments.as_array().is_some_and(Vec::is_empty) {
        arguments = Value::Null;
    }
    if !(arguments.is_object() || arguments.is_null()) {
        return Err(Bad {
            why: "\"arguments\" must be an object".to_string(),
            seq: Some((seq, command.to_string())),
        });
    }
    Ok(Request {
        seq,
        command: command.to_string(),
        arguments,
    })
}

/// Typed access to a request's arguments, with error messages that name
/// the field.
pub struct Args<'a>(pub &'a Value);

impl Args<'_> {
    pub fn str(&self, name: &str) -> Result<Option<&str>, String> {
        match self.0.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(_) => Err(format!("\"{name}\" must be a string")),
        }
    }

    pub fn bool(&self, name: &str) -> Result<Option<bool>, String> {
        match self.0.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(_) => Err(format!("\"{name}\" must be true or false")),
        }
    }

    pub fn num(&self, name: &str) -> Result<Option<f64>, String> {
        match self.0.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => v
                .as_f64()
                .map(Some)
                .ok_or_else(|| format!("\"{name}\" must be a number")),
        }
    }

    pub fn int(&self, name: &str) -> Result<Option<i64>, String> {
        match self.num(name)? {
            Some(n) if n.fract() == 0.0 && n.abs() < 1e15 => Ok(Some(n as i64)),
            Some(_) => Err(format!("\"{name}\" must be a whole number")),
            None => Ok(None),
        }
    }

    pub fn need_int(&self, name: &str) -> Result<i64, String> {
        self.int(name)?
            .ok_or_else(|| format!("the request needs \"{name}\""))
    }
}

/// Writes framed messages, numbering them.
pub struct Output<W: Write> {
    out: W,
    seq: i64,
}

impl<W: Write> Output<W> {
    pub fn new(out: W) -> Self {
        Output { out, seq: 0 }
    }

    fn send(&mut self, mut v: Value) -> io::Result<()> {
        self.seq += 1;
        v["seq"] = json!(self.seq);
        let text = v.to_string();
        write!(self.out, "Content-Length: {}\r\n\r\n{text}", text.len())?;
        self.out.flush()
    }

    /// The response to request `seq`: its body, or an error message.
    pub fn respond(
        &mut self,
        seq: i64,
        command: &str,
        body: Result<Value, String>,
    ) -> io::Result<()> {
        let v = match body {
            Ok(body) => json!({
                "type": "response", "request_seq": seq, "success": true,
                "command": command, "body": body,
            }),
            Err(message) => json!({
                "type": "response", "request_seq": seq, "success": false,
                "command": command, "message": message,
                "body": { "error": { "id": 1, "format": message, "showUser": true } },
            }),
        };
        self.send(v)
    }

    pub fn event(&mut self, event: &str, body: Value) -> io::Result<()> {
        self.send(json!({ "type": "event", "event": event, "body": body }))
    }

    /// Text for the Debug Console.
    pub fn output(&mut self, category: &str, text: &str) -> io::Result<()> {
        self.event("output", json!({ "category": category, "output": text }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_and_what_is_not_one() {
        let r = parse(br#"{"seq":3,"type":"request","command":"next","arguments":{"threadId":1}}"#)
            .expect("a request");
        assert_eq!((r.seq, r.command.as_str()), (3, "next"));
        assert_eq!(Args(&r.arguments).need_int("threadId"), Ok(1));
        assert!(Args(&r.arguments).str("threadId").is_err());
        for bad in [
            &b"{nope"[..],
            b"[1]",
            br#"{"seq":1,"command":"x"}"#,
            br#"{"seq":1,"type":"event","event":"x"}"#,
            br#"{"type":"request","command":"x"}"#,
        ] {
            let e = parse(bad).expect_err("not a request");
            assert_eq!(e.seq, None);
        }
        let lua = parse(br#"{"seq":4,"type":"request","command":"x","arguments":[]}"#);
        assert_eq!(lua.expect("a request").arguments, Value::Null);
        let e = parse(br#"{"seq":2,"type":"request","command":"x","arguments":3}"#)
            .expect_err("bad arguments");
        assert_eq!(e.seq, Some((2, "x".to_string())));
    }
}
