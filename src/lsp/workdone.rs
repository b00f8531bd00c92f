//! Work-done progress while a document is verified, for clients that
//! advertise `window.workDoneProgress`: the server asks for a token
//! (`window/workDoneProgress/create`), and once the client has answered it
//! sends `$/progress` begin, reports (members done) and end.
//!
//! A verification that ends before the client answers still gets its begin
//! and end when the answer comes, so every token the client created is
//! closed; a refused token gets nothing.

use std::collections::HashMap;
use std::io;

use lsp_server::{Notification, Request, RequestId, Response};
use lsp_types::{
    NumberOrString, ProgressParams, ProgressParamsValue, WorkDoneProgress, WorkDoneProgressBegin,
    WorkDoneProgressCreateParams, WorkDoneProgressEnd, WorkDoneProgressReport,
};

use super::transport::Output;
use super::worker::Advance;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Waiting for the client to create the token.
    Asked {
        finished: bool,
    },
    Begun,
}

#[derive(Clone, Copy, Debug)]
struct Counts {
    done: usize,
    total: usize,
    reused: usize,
}

impl Counts {
    fn percentage(self) -> u32 {
        percentage(self.done, self.total)
    }

    fn message(self) -> String {
        format!("{}/{} members", self.done, self.total)
    }
}

struct Work {
    token: String,
    /// The create request.
    request: RequestId,
    title: String,
    phase: Phase,
    /// Members done, planned and reused, when known.
    counts: Option<Counts>,
    /// The last percentage reported.
    reported: Option<u32>,
}

pub struct WorkDone {
    supported: bool,
    next: u64,
    /// Verifications under way, by document key and run number.
    work: HashMap<(String, u64), Work>,
}

fn percentage(done: usize, total: usize) -> u32 {
    (done.min(total) * 100)
        .checked_div(total)
        .map_or(100, |p| p as u32)
}

fn progress(out: &mut Output, token: &str, value: WorkDoneProgress) -> io::Result<()> {
    let params = ProgressParams {
        token: NumberOrString::String(token.to_string()),
        value: ProgressParamsValue::WorkDone(value),
    };
    out.send(Notification::new("$/progress".to_string(), params))
}

fn begin(out: &mut Output, w: &Work) -> io::Result<()> {
    progress(
        out,
        &w.token,
        WorkDoneProgress::Begin(WorkDoneProgressBegin {
            title: w.title.clone(),
            cancellable: Some(false),
            message: w.counts.map(Counts::message),
            percentage: Some(w.counts.map_or(0, Counts::percentage)),
        }),
    )
}

fn end(out: &mut Output, w: &Work) -> io::Result<()> {
    progress(
        out,
        &w.token,
        WorkDoneProgress::End(WorkDoneProgressEnd {
            // What was verified anew and what was reused: how an edit's
            // reach shows to the user (and to tests).
            message: w
                .counts
                .map(|c| format!("{} members, {} reused", c.total, c.reused)),
        }),
    )
}

impl WorkDone {
    pub fn new(supported: bool) -> WorkDone {
        WorkDone {
            supported,
            next: 0,
            work: HashMap::new(),
        }
    }

    /// Verification run `run` of document `key` starts.
    pub fn started(
        &mut self,
        out: &mut Output,
        key: &str,
        run: u64,
        title: String,
    ) -> io::Result<()> {
        if !self.supported {
            return Ok(());
        }
        self.next += 1;
        let token = format!("sift/verify/{}", self.next);
        let request = RequestId::from(format!("sift-progress-{}", self.next));
        out.send(Request::new(
            request.clone(),
            "window/workDoneProgress/create".to_string(),
            WorkDoneProgressCreateParams {
                token: NumberOrString::String(token.clone()),
            },
        ))?;
        self.work.insert(
            (key.to_string(), run),
            Work {
                token,
                request,
                title,
                phase: Phase::Asked { finished: false },
                counts: None,
                reported: None,
            },
        );
        Ok(())
    }

    /// Members of a running verification are done.
    pub fn advanced(&mut self, out: &mut Output, a: &Advance) -> io::Result<()> {
        let Some(w) = self.work.get_mut(&(a.key.clone(), a.run)) else {
            return Ok(());
        };
        let counts = Counts {
            done: a.done,
            total: a.total,
            reused: a.reused,
        };
        w.counts = Some(counts);
        let pct = counts.percentage();
        if w.phase != Phase::Begun || w.reported == Some(pct) {
            return Ok(());
        }
        // One report per percent: a file of many members does not flood
        // the client.
        w.reported = Some(pct);
        progress(
            out,
            &w.token,
            WorkDoneProgress::Report(WorkDoneProgressReport {
                cancellable: Some(false),
                message: Some(counts.message()),
                percentage: Some(pct),
            }),
        )
    }

    /// The verification ended (with a result or not).
    pub fn finished(&mut self, out: &mut Output, key: &str, run: u64) -> io::Result<()> {
        let id = (key.to_string(), run);
        match self.work.get_mut(&id) {
            Some(w) if w.phase == Phase::Begun => {
                let w = self.work.remove(&id).expect("present");
                end(out, &w)
            }
            Some(w) => {
                w.phase = Phase::Asked { finished: true };
                Ok(())
            }
            None => Ok(()),
        }
    }

    /// A response from the client; `false` if it is not about progress.
    pub fn response(&mut self, out: &mut Output, r: &Response) -> io::Result<bool> {
        let Some(id) = self
            .work
            .iter()
            .find(|(_, w)| w.request == r.id)
            .map(|(id, _)| id.clone())
        else {
            return Ok(false);
        };
        if r.response_result.is_err() {
            self.work.remove(&id);
            return Ok(true);
        }
        let Some(w) = self.work.get_mut(&id) else {
            return Ok(true);
        };
        let finished = w.phase == (Phase::Asked { finished: true });
        w.phase = Phase::Begun;
        w.reported = w.counts.map(Counts::percentage);
        begin(out, w)?;
        if finished {
            let w = self.work.remove(&id).expect("present");
            end(out, &w)?;
        }
        Ok(true)
    }
}
