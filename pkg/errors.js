// Typed errors, rebuilt on the main thread from the {name, code, message} the worker posts.

export class DocsiftError extends Error {
  constructor(message, code = 'docsift') {
    super(message);
    this.name = 'DocsiftError';
    this.code = code;
  }
}

export class PasswordRequiredError extends DocsiftError {
  constructor(message, code = 'password_required') {
    super(message, code);
    this.name = 'PasswordRequiredError';
  }
}

export class MalformedPdfError extends DocsiftError {
  constructor(message, code = 'malformed') {
    super(message, code);
    this.name = 'MalformedPdfError';
  }
}

export class LimitExceededError extends DocsiftError {
  constructor(message, code = 'limit_exceeded') {
    super(message, code);
    this.name = 'LimitExceededError';
  }
}

export class UnsupportedInputError extends DocsiftError {
  constructor(message, code = 'unsupported') {
    super(message, code);
    this.name = 'UnsupportedInputError';
  }
}

const CLASSES = { DocsiftError, PasswordRequiredError, MalformedPdfError, LimitExceededError, UnsupportedInputError };

/** Rebuilds an error posted by the worker; aborts become DOMException('AbortError'). */
export function rebuildError(e) {
  if (e && e.name === 'AbortError') return new DOMException(e.message || 'extraction aborted', 'AbortError');
  const Cls = CLASSES[e?.name] || DocsiftError;
  return new Cls(e?.message || String(e), e?.code);
}
