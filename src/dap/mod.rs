//! `sift dap`: a Debug Adapter Protocol server on stdin/stdout over the
//! same execution tree, stepping and probes as `sift debug` (the
//! `debug::Session` does all the moving; this module maps the protocol's
//! requests onto it and its states onto frames, scopes and variables).
//!
//! One thread: a symbolic execution is a tree of paths, and the session
//! follows one path at a time, choosing the branch at each split (the
//! custom `branches`/`branch` requests, or `branch N` in the Debug
//! Console). A thread per path would list every path of the tree at once
//! (exponentially many with a few conditionals), and stepping back from a
//! split would have to pick one of the threads anyway.
//!
//! Messages are read and answered one at a time: a request that verifies
//! the program again (`launch`, `evaluate`, a conditional breakpoint) is
//! bounded by the solver's time limit. The end of the input or a write
//! that fails (the client went away) ends the server.

mod frames;
mod protocol;
mod requests;
mod session;
mod variables;

use std::io::{self, BufRead, Write};

use protocol::{Output, parse};
use session::Adapter;

/// Serves one client on `input`/`output` until it disconnects or goes.
pub fn serve(mut input: impl BufRead, output: impl Write) -> io::Result<()> {
    let mut out = Output::new(output);
    let mut adapter = Adapter::default();
    loop {
        let body = match crate::lsp::read_body(&mut input)? {
            None => return Ok(()),
            Some(Ok(body)) => body,
            Some(Err(why)) => {
                out.output(
                    "stderr",
                    &format!("sift dap: ignored a malformed message: {why}\n"),
                )?;
                continue;
            }
        };
        let req = match parse(&body) {
            Ok(r) => r,
            Err(bad) => {
                match bad.seq {
                    Some((seq, command)) => out.respond(seq, &command, Err(bad.why))?,
                    None => out.output(
                        "stderr",
                        &format!("sift dap: ignored a malformed message: {}\n", bad.why),
                    )?,
                }
                continue;
            }
        };
        let reply = adapter.handle(&req);
        out.respond(req.seq, &req.command, reply.body)?;
        for (event, body) in reply.events {
            out.event(event, body)?;
        }
        if reply.end {
            return Ok(());
        }
    }
}

/// `sift dap`: serves the client on stdin/stdout.
pub fn run() -> io::Result<()> {
    let stdin = io::stdin();
    serve(stdin.lock(), io::stdout())
}
