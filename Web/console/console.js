// The operator console: polls /console/api/state and the audit log's new lines, and
// sends reloads and explain requests. Every value from the runner is shown as text.

const $ = (id) => document.getElementById(id);
let token = sessionStorage.getItem('sb.console') || '';
let auditNext = null;
let timers = [];

function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') el.className = value; else el.setAttribute(key, String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

async function call(method, path, body) {
  const headers = {};
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(`/console/api/${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), cache: 'no-store', credentials: 'omit' });
  if (response.status === 204) return null;
  const json = await response.json().catch(() => null);
  if (!response.ok) {
    const error = new Error(json?.error?.message || `the runner answered ${response.status}`);
    error.status = response.status;
    if (response.status === 401 && token) loggedOut(error.message);
    throw error;
  }
  return json;
}

function loggedOut(message) {
  token = '';
  sessionStorage.removeItem('sb.console');
  for (const timer of timers) clearInterval(timer);
  timers = [];
  $('dash').hidden = true;
  $('reload').hidden = true;
  $('logout').hidden = true;
  $('who').textContent = '';
  $('login').hidden = false;
  $('login-error').textContent = message || '';
}

async function start() {
  const state = await call('GET', 'state');
  $('login').hidden = true;
  $('dash').hidden = false;
  $('reload').hidden = false;
  $('logout').hidden = false;
  $('who').textContent = `logged in: ${state.caller}`;
  render(state);
  await audit();
  timers.push(setInterval(() => call('GET', 'state').then(render).catch(() => {}), 3000));
  timers.push(setInterval(() => audit().catch(() => {}), 2000));
}

$('login-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  $('login-error').textContent = '';
  const given = $('token').value.trim();
  try {
    if (given) token = given;
    else {
      const username = $('username').value.trim();
      const password = $('password').value;
      if (!username || !password) throw new Error('Give an administrator username and password, or the metrics token.');
      token = (await call('POST', 'login', { username, password })).token;
    }
    $('password').value = '';
    $('token').value = '';
    await start();
    sessionStorage.setItem('sb.console', token);
  } catch (error) {
    token = '';
    $('login-error').textContent = error.message;
  }
});

$('logout').addEventListener('click', async () => {
  await call('POST', 'logout').catch(() => {});
  loggedOut('');
});

$('reload').addEventListener('click', async () => {
  const out = $('reload-result');
  out.textContent = 'Reloading…';
  try {
    const { problems } = await call('POST', 'reload');
    out.textContent = problems.length ? `Reloaded; ${problems.length} file(s) could not be taken (see the bots table).` : 'Reloaded: every bot file was taken.';
    render(await call('GET', 'state'));
  } catch (error) {
    out.textContent = error.message;
  }
});

function render(state) {
  $('who').textContent = `logged in: ${state.caller} · ${state.status}${state.reloading ? ' · reloading' : ''}`;
  $('bots').replaceChildren(...state.bots.map((bot) => {
    const lease = bot.lease ? `${bot.lease.state}${bot.lease.holder ? ' (' + bot.lease.holder + ')' : ''}${bot.lease.fence ? ' fence ' + bot.lease.fence : ''}` : 'state folder';
    const label = { running: 'running', reloading: 'reloading', failing: 'failing', failing_old_rules: 'failing (old rules run)' }[bot.state] ?? bot.state;
    return h('tr', { 'data-test': 'console-bot', 'data-bot': bot.name, 'data-state': bot.state },
      h('th', { scope: 'row' }, bot.name),
      h('td', {}, h('span', { class: `state-${bot.state}`, 'data-test': 'console-bot-state' }, label),
        bot.errors?.length ? h('ul', { class: 'errors', 'data-test': 'console-bot-errors' }, bot.errors.map((e) => h('li', {}, e))) : null),
      h('td', {}, lease), h('td', {}, bot.file ?? '', bot.version ? ` (version ${bot.version})` : ''), h('td', {}, bot.outbox ?? ''));
  }));
  $('rules').replaceChildren(...state.bots.flatMap((bot) => (bot.rules ?? []).map((rule) =>
    h('tr', { 'data-test': 'console-rule', 'data-bot': bot.name, 'data-rule': rule.name },
      h('td', {}, bot.name), h('th', { scope: 'row' }, rule.name), h('td', {}, rule.mode),
      h('td', {}, rule.matched), h('td', {}, rule.fired), h('td', {}, rule.suppressed), h('td', {}, rule.failed)))));
  $('hooks').replaceChildren(...state.bots.flatMap((bot) => (bot.webhooks ?? []).map((hook) => {
    const inbox = (bot.alerts?.inbox ?? []).filter((d) => d.path === hook.path);
    const stored = Math.max(0, (bot.alerts?.next_delivery ?? bot.alerts?.nextDelivery ?? 1) - 1);
    const requests = Object.entries(hook.requests).filter(([, n]) => n > 0).map(([k, n]) => `${k} ${n}`).join(', ') || 'none yet';
    return h('tr', { 'data-test': 'console-webhook', 'data-bot': bot.name, 'data-path': hook.path },
      h('td', {}, bot.name), h('th', { scope: 'row' }, `${hook.path} (${hook.format})`), h('td', {}, requests),
      h('td', { 'data-test': 'console-inbox' }, `${inbox.length} waiting`),
      h('td', {}, `${stored} stored in all`, inbox.slice(-5).map((d) => h('div', {}, `#${d.number} at ${new Date(d.received_at ?? d.receivedAt).toLocaleString()}`))));
  })));
  const incidents = [];
  for (const bot of state.bots) {
    for (const [book, content] of Object.entries(bot.alerts?.books ?? {})) {
      for (const incident of Object.values(content?.incidents ?? {})) {
        if (!incident || typeof incident !== 'object') continue;
        // An instance's state is firing, resolving (held by the flap damper) or resolved.
        const firing = (incident.instances ?? []).filter((i) => !(i.state && typeof i.state === 'object' && 'resolved' in i.state)).length;
        if (firing === 0) continue;
        const labels = Object.entries(incident.groupLabels ?? incident.commonLabels ?? {}).map(([k, v]) => `${k}=${v}`).join(' ');
        const ack = incident.acknowledgedBy ? ` · acknowledged by ${incident.acknowledgedBy}` : '';
        incidents.push(h('li', { 'data-test': 'console-incident' }, `${bot.name} · ${book} · ${firing} firing · ${labels || incident.groupKey}${ack}`));
      }
    }
  }
  $('incidents').replaceChildren(...(incidents.length ? incidents : [h('li', { class: 'hint' }, 'No open incidents.')]));
  const cases = state.bots.flatMap((bot) => (bot.moderation?.cases ?? []).map((c) =>
    h('li', { 'data-test': 'console-case' }, `${bot.name} · #${c.number ?? ''} · ${c.at ?? ''} · ${c.action ?? ''} ${c.user ?? ''}${c.conversation ? ' in ' + c.conversation : ''} by ${c.by ?? ''} (${c.rule ?? ''})${c.detail ? ': ' + c.detail : ''}${c.undone_by ? ' · undone by ' + c.undone_by : ''}`)));
  $('cases').replaceChildren(...(cases.length ? cases : [h('li', { class: 'hint' }, 'No moderation cases.')]));
  const select = $('explain-bot');
  const chosen = select.value;
  const running = state.bots.filter((b) => b.rules).map((b) => b.name);
  if (select.options.length !== running.length || [...select.options].some((o, i) => o.value !== running[i])) {
    select.replaceChildren(...running.map((name) => h('option', { value: name }, name)));
    if (running.includes(chosen)) select.value = chosen;
  }
}

async function audit() {
  const answer = await call('GET', `audit${auditNext === null ? '' : `?after=${auditNext}`}`);
  auditNext = answer.next;
  const list = $('audit');
  for (const line of answer.lines) {
    let text = line;
    try {
      const entry = JSON.parse(line);
      text = `${entry.at} ${entry.bot} ${entry.rule}${entry.action ? ' ' + entry.action : ''} ${entry.outcome}${entry.conversation ? ' in ' + entry.conversation : ''}${entry.detail ? ': ' + entry.detail : ''}`;
    } catch { /* shown as it is */ }
    list.append(h('li', { 'data-test': 'console-audit-line' }, text));
  }
  while (list.childElementCount > 200) list.firstElementChild.remove();
  if (answer.lines.length) list.scrollTop = list.scrollHeight;
}

$('explain-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  const out = $('explain-out');
  const path = $('explain-path').value.trim();
  const body = { bot: $('explain-bot').value };
  if (path) { body.path = path; body.body = $('explain-text').value; } else {
    body.text = $('explain-text').value;
    if ($('explain-from').value.trim()) body.from = $('explain-from').value.trim();
    if ($('explain-in').value.trim()) body.in = $('explain-in').value.trim();
  }
  try {
    const answer = await call('POST', 'explain', body);
    out.replaceChildren(
      h('p', { 'data-test': 'console-explain-fires' }, answer.fires.length ? `Fires: ${answer.fires.join(', ')}` : 'No rule fires: the bot would do nothing.'),
      h('ul', { class: 'plain' }, answer.rules.map((r) => h('li', { 'data-test': 'console-explain-rule', 'data-rule': r.rule }, `${r.rule}: ${r.verdict} — ${r.reason}`))));
  } catch (error) {
    out.replaceChildren(h('p', { class: 'error' }, error.message));
  }
});

if (token) start().catch(() => loggedOut(''));
