// The /v1 API, as every client uses it: JSON in and out, the token in the Authorization
// header only (never in a URL), errors as ApiError with the envelope's code and reason.

export class ApiError extends Error {
  constructor(status, body) {
    const error = body?.error ?? {};
    super(error.message || `the server answered ${status}`);
    this.status = status;
    this.code = error.code || (status === 0 ? 'NETWORK' : 'UNKNOWN');
    this.reason = error.reason;
    this.field = error.field;
    this.until = error.until;
    this.retryAfter = error.retry_after;
  }

  /** True when the request never got an answer (server down, network gone). */
  get isNetwork() { return this.status === 0; }
}

export class Api {
  constructor() {
    this.token = null;
    /** Called with the ApiError when a login ends (401 with a token). */
    this.onLoggedOut = null;
  }

  async call(method, path, body, { signal, raw } = {}) {
    const headers = {};
    if (this.token) headers.Authorization = `Bearer ${this.token}`;
    let payload;
    if (raw) {
      payload = raw;
      headers['Content-Type'] = raw.type || 'application/octet-stream';
    } else if (body !== undefined) {
      payload = JSON.stringify(body);
      headers['Content-Type'] = 'application/json';
    }
    let response;
    try {
      response = await fetch(path, { method, headers, body: payload, signal, cache: 'no-store', credentials: 'omit', referrerPolicy: 'no-referrer' });
    } catch (error) {
      if (error.name === 'AbortError') throw error;
      throw new ApiError(0, { error: { code: 'NETWORK', message: 'no connection to the server' } });
    }
    if (response.status === 204) return null;
    let json = null;
    try { json = await response.json(); } catch { json = null; }
    if (!response.ok) {
      const error = new ApiError(response.status, json);
      if (response.status === 401 && this.token && this.onLoggedOut) this.onLoggedOut(error);
      throw error;
    }
    return json;
  }

  get(path, options) { return this.call('GET', path, undefined, options); }
  post(path, body) { return this.call('POST', path, body ?? {}); }
  patch(path, body) { return this.call('PATCH', path, body); }
  put(path, body) { return this.call('PUT', path, body); }
  del(path) { return this.call('DELETE', path); }
}

/** A path segment: names and addresses are sent percent-encoded. */
export const seg = (value) => encodeURIComponent(value);
