// Typed errors, rebuilt on the main thread from the {name, code, message} the worker posts.

export class DocsiftError extends Error {
  constructor(message, code = 'docsift') {
    super(message);
    this.name = 'DocsiftError';
    this.code = code;
  }
}

/** A named DocsiftError subclass with its default code. */
function subclass(name, defaultCode) {
  const cls = class extends DocsiftError {
    constructor(message, code = defaultCode) {
      super(message, code);
      this.name = name;
    }
  };
  Object.defineProperty(cls, 'name', { value: name });
  return cls;
}

export const PasswordRequiredError = subclass('PasswordRequiredError', 'password_required');
export const MalformedPdfError = subclass('MalformedPdfError', 'malformed');
export const LimitExceededError = subclass('LimitExceededError', 'limit_exceeded');
export const UnsupportedInputError = subclass('UnsupportedInputError', 'unsupported');

const CLASSES = { DocsiftError, PasswordRequiredError, MalformedPdfError, LimitExceededError, UnsupportedInputError };

/** Rebuilds an error posted by the worker; aborts become DOMException('AbortError'). */
export function rebuildError(e) {
  if (e && e.name === 'AbortError') return new DOMException(e.message || 'extraction aborted', 'AbortError');
  const Cls = CLASSES[e?.name] || DocsiftError;
  return new Cls(e?.message || String(e), e?.code);
}

/**
 * What a worker posts when its build trapped: `what` failed, with the panic's message (the
 * build's panic hook leaves it on the global, or posts it from a pool thread) or the trap's.
 */
export function trapShape(what, message) {
  return { name: 'DocsiftError', code: 'internal', message: `${what} failed: ${String(message).replace(/\s+/g, ' ').trim()}` };
}

/** What a worker posts for an error: the wasm's {name, code, message} as is, anything else as internal. */
export function errorShape(e) {
  if (e && typeof e === 'object' && 'name' in e && 'code' in e) return { name: e.name, code: e.code, message: e.message };
  return { name: 'DocsiftError', code: 'internal', message: String(e && e.message ? e.message : e) };
}
