// The event feed: one long poll at a time with the cursor of the last answer; events at
// or below the last handled position are repeats and dropped (kicked_out excepted, which
// reuses the cursor's position). A lost connection is retried with the same cursor, so
// nothing is missed across a server restart.

const POLL_SECONDS = 25;

export class Feed {
  constructor(api, { onEvent, onOnline, onOffline, onResync }) {
    this.api = api;
    this.handlers = { onEvent, onOnline, onOffline, onResync };
    this.cursor = null;
    this.last = 0;
    this.running = false;
    this.online = true;
    this.controller = null;
    this.wakeRetry = null;
  }

  /** The current cursor (taken before the lists are loaded, so nothing falls between). */
  async begin() {
    const answer = await this.api.get('/v1/events');
    this.cursor = answer.cursor;
  }

  start() {
    if (this.running) return;
    this.running = true;
    this.loop();
  }

  stop() {
    this.running = false;
    this.controller?.abort();
    this.wakeRetry?.();
  }

  /** Polls again at once (the browser says it is online again). */
  retryNow() { this.wakeRetry?.(); }

  async loop() {
    let delay = 500;
    while (this.running) {
      const controller = new AbortController();
      this.controller = controller;
      // A poll the server holds past its timeout (a connection gone quiet) is given up and
      // the server probed, instead of waiting on it forever.
      let stalled = false;
      const guard = setTimeout(() => { stalled = true; controller.abort(); }, (POLL_SECONDS + 15) * 1000);
      try {
        const answer = await this.api.get(`/v1/events?cursor=${encodeURIComponent(this.cursor)}&timeout=${POLL_SECONDS}`,
                                          { signal: controller.signal });
        clearTimeout(guard);
        this.setOnline(true);
        delay = 500;
        for (const event of answer.events) {
          if (event.type === 'kicked_out') { this.handlers.onEvent(event); continue; }
          if (event.position <= this.last) continue;
          this.last = event.position;
          try { this.handlers.onEvent(event); } catch (error) { console.error('event', event.type, error); }
        }
        this.cursor = answer.cursor;
      } catch (error) {
        clearTimeout(guard);
        if (!this.running) return;
        if (error.name === 'AbortError') {
          if (!stalled) return;
          if (await this.reachable()) continue;
          this.setOnline(false);
        }
        if (error.status === 401) { this.running = false; return; }
        if (error.status === 410) {
          await this.begin().catch(() => {});
          this.handlers.onResync();
          continue;
        }
        if (error.isNetwork || error.status >= 500) this.setOnline(false);
        const wait = error.retryAfter ? error.retryAfter * 1000 : error.status === 409 ? 2000 : delay;
        delay = Math.min(delay * 2, 5000);
        await new Promise((resolve) => {
          const timer = setTimeout(resolve, wait);
          this.wakeRetry = () => { clearTimeout(timer); resolve(); };
        });
        this.wakeRetry = null;
        // Back as soon as the server answers at all: a poll may park a while before it does.
        if (!this.online && this.running && await this.reachable()) this.setOnline(true);
      }
    }
  }

  /** Whether the server answers its health check now. */
  async reachable() {
    try {
      const response = await fetch('/healthz', { cache: 'no-store', credentials: 'omit' });
      return response.ok;
    } catch {
      return false;
    }
  }

  setOnline(online) {
    if (online === this.online) return;
    this.online = online;
    if (online) this.handlers.onOnline(); else this.handlers.onOffline();
  }
}
