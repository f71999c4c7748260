// Messages typed but not yet stored by the server. Each has its client id from the
// moment it is typed, kept in this browser's storage, so a send retried after the
// connection (or the page) was lost stores it once: the server answers a known
// client_msg_id with the first message. A refusal (muted, slow mode, too long) marks
// it failed, visibly, until it is retried or discarded.

export function clientId() {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return 'web-' + Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

export class Outbox {
  constructor(api, username, { onChange, onSent }) {
    this.api = api;
    this.key = `sb.outbox.${username}`;
    this.onChange = onChange;
    this.onSent = onSent;
    this.flushing = false;
    try { this.items = JSON.parse(localStorage.getItem(this.key) || '[]'); } catch { this.items = []; }
    for (const item of this.items) if (item.state === 'sending') item.state = 'queued';
  }

  save() {
    localStorage.setItem(this.key, JSON.stringify(this.items));
    this.onChange();
  }

  /** The pending messages of one conversation, oldest first. */
  of(address) { return this.items.filter((item) => item.address === address); }

  add(address, text, replyTo) {
    const item = { id: clientId(), address, text, reply_to: replyTo || undefined, state: 'queued', at: Date.now() };
    this.items.push(item);
    this.save();
    this.flush();
    return item;
  }

  retry(id) {
    const item = this.items.find((i) => i.id === id);
    if (item) { item.state = 'queued'; item.error = undefined; this.save(); this.flush(); }
  }

  discard(id) {
    this.items = this.items.filter((i) => i.id !== id);
    this.save();
  }

  /** Sends what is queued, in order; stops at the first that cannot get through now. */
  async flush() {
    if (this.flushing) return;
    this.flushing = true;
    try {
      for (;;) {
        const item = this.items.find((i) => i.state === 'queued');
        if (!item) return;
        item.state = 'sending';
        this.onChange();
        try {
          const body = { text: item.text, client_msg_id: item.id };
          if (item.reply_to) body.reply_to = item.reply_to;
          const message = await this.api.post(`/v1/conversations/${encodeURIComponent(item.address)}/messages`, body);
          this.items = this.items.filter((i) => i.id !== item.id);
          this.save();
          this.onSent(item, message);
        } catch (error) {
          const transient = error.isNetwork || error.status >= 500 || (error.status === 429 && error.reason !== 'slow_mode');
          if (error.status === 401) { item.state = 'queued'; this.save(); return; }
          if (transient) {
            item.state = 'queued';
            item.error = error.isNetwork ? 'waiting for the connection' : error.message;
            this.save();
            // Tried again on reconnecting (the feed calls flush) and, meanwhile, on a timer.
            clearTimeout(this.retryTimer);
            this.retryTimer = setTimeout(() => this.flush(), (error.retryAfter || (error.isNetwork ? 5 : 2)) * 1000);
            return;
          }
          item.state = 'failed';
          item.error = error.message;
          item.reason = error.reason;
          this.save();
        }
      }
    } finally {
      this.flushing = false;
    }
  }
}
