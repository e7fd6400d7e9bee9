//! The threaded OCR build's way to the GPU worker: a mailbox in this module's shared
//! memory. The calling pool thread blocks on the mailbox word (`memory.atomic.wait32`,
//! allowed in workers); the GPU worker waits for it asynchronously (`Atomics.waitAsync`),
//! runs the prepared model, and writes the outputs back. One call at a time: the GPU runs
//! them in turn anyway.
//!
//! The word layout is shared with pkg/webgpu-worker.js (`MAILBOX`); keep them in step.

use std::sync::Mutex;
use std::sync::atomic::{AtomicI32, Ordering};

use docsift::ModelKind;
use docsift::ocr_models::{ModelCall, OcrError, Tensor};

use super::{Transport, model_index};

/// Mailbox states: who acts next.
const IDLE: i32 = 0;
/// Rust → GPU: a request is written (model, shape, input).
const REQUEST: i32 = 1;
/// GPU: the input is copied out; the model runs.
const TAKEN: i32 = 2;
/// GPU → Rust: the outputs' count, shapes and total length are written.
const SIZED: i32 = 3;
/// Rust → GPU: a buffer for the outputs is allocated (its pointer written).
const BUFFER: i32 = 4;
/// GPU: copying the outputs into the buffer.
const WRITING: i32 = 5;
/// GPU → Rust: the outputs are in the buffer.
const DONE: i32 = 6;
/// GPU → Rust: the call failed; the message is in the mailbox.
const FAILED: i32 = 7;
/// Rust gave up waiting: the GPU side must not touch the buffers again, and stops serving.
const ABANDONED: i32 = 8;

/// Seconds one step of a call may take before the GPU worker is taken as gone (a software
/// adapter runs a page-sized detection in under a minute; a lost device never answers).
const STEP_TIMEOUT_S: u32 = 300;

/// Outputs per model at most (the layout model has four).
const MAX_OUTPUTS: usize = 4;
/// Dimensions per tensor (inputs are N×C×H×W; outputs of lower rank are padded with 1s).
const RANK: usize = 4;
/// Bytes of error message the GPU side may leave.
const MESSAGE_BYTES: usize = 1024;

// Word offsets.
const STATE: usize = 0;
const MODEL: usize = 1;
const INPUT_PTR: usize = 2;
const INPUT_LEN: usize = 3;
const SHAPE: usize = 4;
const OUT_COUNT: usize = SHAPE + RANK;
const OUT_TOTAL: usize = OUT_COUNT + 1;
const OUT_PTR: usize = OUT_TOTAL + 1;
const OUT_RANKS: usize = OUT_PTR + 1;
const OUT_SHAPES: usize = OUT_RANKS + MAX_OUTPUTS;
const MESSAGE_LEN: usize = OUT_SHAPES + MAX_OUTPUTS * RANK;
const MESSAGE: usize = MESSAGE_LEN + 1;
const WORDS: usize = MESSAGE + MESSAGE_BYTES / 4;

#[repr(C, align(16))]
struct MailboxWords([AtomicI32; WORDS]);

static MAILBOX: MailboxWords = MailboxWords([const { AtomicI32::new(0) }; WORDS]);
/// Callers take turns: one request is in the mailbox at a time.
static TURN: Mutex<()> = Mutex::new(());

/// The mailbox's address in linear memory, for the GPU worker.
pub fn mailbox_address() -> usize {
    MAILBOX.0.as_ptr() as usize
}

fn word(i: usize) -> &'static AtomicI32 {
    &MAILBOX.0[i]
}

/// Blocks this thread while the mailbox state is one of `states`, for at most
/// `STEP_TIMEOUT_S`; returns the state it moved to, or None on timeout.
fn wait_while(states: &[i32]) -> Option<i32> {
    let mut seconds = 0;
    loop {
        let now = word(STATE).load(Ordering::SeqCst);
        if !states.contains(&now) {
            return Some(now);
        }
        if seconds >= STEP_TIMEOUT_S {
            return None;
        }
        // SAFETY: the pointer is to a live, aligned i32 in this module's shared memory.
        if unsafe { core::arch::wasm32::memory_atomic_wait32(word(STATE).as_ptr(), now, 1_000_000_000) } == 2 {
            seconds += 1;
        }
    }
}

/// Hands the mailbox to the other side.
fn set_state(state: i32) {
    word(STATE).store(state, Ordering::SeqCst);
    // SAFETY: as above.
    unsafe { core::arch::wasm32::memory_atomic_notify(word(STATE).as_ptr(), u32::MAX) };
}

/// Takes the mailbox back from a GPU side that did not answer in time, for good. A write
/// under way finishes first: the buffer it writes into must outlive it.
fn abandon(model: ModelKind) -> OcrError {
    loop {
        let now = word(STATE).load(Ordering::SeqCst);
        if now == WRITING {
            wait_while(&[WRITING]);
        } else if word(STATE).compare_exchange(now, ABANDONED, Ordering::SeqCst, Ordering::SeqCst).is_ok() {
            return OcrError::Model { model, message: "WebGPU: the GPU worker stopped answering".into() };
        }
    }
}

/// The GPU side's message for a failed call.
fn gpu_message(model: ModelKind) -> OcrError {
    let len = (word(MESSAGE_LEN).load(Ordering::SeqCst).max(0) as usize).min(MESSAGE_BYTES);
    let bytes: Vec<u8> =
        (0..len).map(|i| (word(MESSAGE + i / 4).load(Ordering::SeqCst) >> (8 * (i % 4))) as u8).collect();
    OcrError::Model { model, message: format!("WebGPU: {}", String::from_utf8_lossy(&bytes)) }
}

/// The outcome of a step that did not go the expected way: the GPU side's message.
fn failed(model: ModelKind, state: i32) -> OcrError {
    let e = if state == FAILED {
        gpu_message(model)
    } else {
        OcrError::Model { model, message: format!("WebGPU: mailbox in state {state}") }
    };
    set_state(IDLE);
    e
}

/// Model calls through the mailbox.
pub struct Mailbox;

impl Transport for Mailbox {
    /// Answered when it returns: this thread blocks until the GPU side has written the outputs.
    fn call(&self, model: ModelKind, input: &Tensor, shape: [usize; 4]) -> ModelCall<'static> {
        Box::pin(std::future::ready(self.blocking_call(model, input, shape)))
    }
}

impl Mailbox {
    fn blocking_call(
        &self,
        model: ModelKind,
        input: &Tensor,
        [n, c, h, w]: [usize; 4],
    ) -> Result<Vec<Tensor>, OcrError> {
        let _turn = TURN.lock().unwrap_or_else(|p| p.into_inner());
        if word(STATE).load(Ordering::SeqCst) == ABANDONED {
            return Err(OcrError::Model { model, message: "WebGPU: the GPU worker stopped answering".into() });
        }
        word(MODEL).store(model_index(model) as i32, Ordering::SeqCst);
        word(INPUT_PTR).store(input.data.as_ptr() as i32, Ordering::SeqCst);
        word(INPUT_LEN).store(input.data.len() as i32, Ordering::SeqCst);
        for (i, d) in [n, c, h, w].into_iter().enumerate() {
            word(SHAPE + i).store(d as i32, Ordering::SeqCst);
        }
        set_state(REQUEST);
        match wait_while(&[REQUEST, TAKEN]) {
            None => return Err(abandon(model)),
            Some(SIZED) => {}
            Some(other) => return Err(failed(model, other)),
        }
        let count = (word(OUT_COUNT).load(Ordering::SeqCst).max(0) as usize).min(MAX_OUTPUTS);
        let shapes: Vec<Vec<usize>> = (0..count)
            .map(|o| {
                let rank = (word(OUT_RANKS + o).load(Ordering::SeqCst).max(0) as usize).min(RANK);
                (0..rank).map(|d| word(OUT_SHAPES + o * RANK + d).load(Ordering::SeqCst).max(0) as usize).collect()
            })
            .collect();
        let total: usize = shapes.iter().map(|s| s.iter().product::<usize>()).sum();
        if total != word(OUT_TOTAL).load(Ordering::SeqCst).max(0) as usize {
            set_state(IDLE);
            return Err(OcrError::Model { model, message: "WebGPU: output sizes disagree with their shapes".into() });
        }
        let mut out = vec![0f32; total];
        word(OUT_PTR).store(out.as_mut_ptr() as i32, Ordering::SeqCst);
        set_state(BUFFER);
        match wait_while(&[BUFFER, WRITING]) {
            None => return Err(abandon(model)),
            Some(DONE) => set_state(IDLE),
            Some(other) => return Err(failed(model, other)),
        }
        let mut rest = out.as_slice();
        Ok(shapes
            .into_iter()
            .map(|shape| {
                let (head, tail) = rest.split_at(shape.iter().product());
                rest = tail;
                Tensor::new(shape, head.to_vec())
            })
            .collect())
    }
}
