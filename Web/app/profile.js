// The Profile screen: nickname, signature, avatar (with a preview before upload),
// password, the account's logins with "end this session", and logging out.

import { h, text, $, showError, fillAvatar, shortTime } from './dom.js';
import { seg } from './api.js';

export function renderProfile(app) {
  const me = app.state.me;
  fillAvatar($('profile-avatar'), me.avatar_url, me.nickname);
  $('profile-name').replaceChildren(text(me.nickname));
  $('profile-username').textContent = `@${me.username}`;
  $('profile-nickname').value = me.nickname;
  $('profile-signature').value = me.signature || '';
}

export async function loadLogins(app) {
  try {
    const { sessions } = await app.api.get('/v1/me/sessions');
    $('session-logins').replaceChildren(...sessions.map((s) => h('li', { class: 'pending-row', 'data-test': 'login-row', 'data-current': String(!!s.current) },
      h('span', { class: 'row-main' }, text(s.device || 'a login without a device name'), s.current ? ' (this browser)' : '',
        h('span', { class: 'row-sub' }, `since ${shortTime(s.created_at)}${s.last_used_at ? ', last used ' + shortTime(s.last_used_at) : ''}`)),
      h('button', { type: 'button', 'data-test': 'login-end', onclick: () => app.act(async () => {
        if (s.current) return app.logout();
        await app.api.del(`/v1/me/sessions/${seg(s.id)}`);
        await loadLogins(app);
      }) }, s.current ? 'Log out' : 'End this session'))));
  } catch (error) {
    $('session-logins').replaceChildren(h('li', { class: 'error' }, error.message));
  }
}

export function setUpProfile(app) {
  $('profile-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    showError($('profile-error'), null);
    const nickname = $('profile-nickname').value.trim();
    if (!nickname) return showError($('profile-error'), new Error('A nickname cannot be empty.'));
    try {
      app.setMe(await app.api.patch('/v1/me', { nickname, signature: $('profile-signature').value }));
      app.announce('Profile saved.');
    } catch (error) { showError($('profile-error'), error); }
  });
  let previewURL = null;
  $('avatar-file').addEventListener('change', () => {
    const file = $('avatar-file').files[0];
    if (previewURL) URL.revokeObjectURL(previewURL);
    previewURL = file ? URL.createObjectURL(file) : null;
    $('avatar-preview').hidden = !file;
    if (file) $('avatar-preview').src = previewURL;
  });
  $('avatar-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    showError($('avatar-error'), null);
    const file = $('avatar-file').files[0];
    if (!file) return showError($('avatar-error'), new Error('Choose an image first.'));
    if (file.size > 2 * 1024 * 1024) return showError($('avatar-error'), new Error('The image is larger than 2 MiB.'));
    try {
      const answer = await app.api.call('PUT', '/v1/me/avatar', undefined, { raw: file });
      app.setMe(answer.user);
      app.announce('Avatar uploaded.');
    } catch (error) { showError($('avatar-error'), error); }
  });
  $('password-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    showError($('password-error'), null);
    const old = $('password-old').value;
    const fresh = $('password-new').value;
    if (!old || !fresh) return showError($('password-error'), new Error('Give the current and the new password.'));
    try {
      const answer = await app.api.put('/v1/me/password', { old_password: old, new_password: fresh });
      app.replaceToken(answer.token);
      $('password-old').value = '';
      $('password-new').value = '';
      app.announce('Password changed; your other logins were ended.');
    } catch (error) { showError($('password-error'), error); }
  });
  $('logout').addEventListener('click', () => app.logout());
  if ('Notification' in window) {
    const button = $('notify-enable');
    const refresh = () => { button.hidden = Notification.permission !== 'default'; };
    button.addEventListener('click', async () => { await Notification.requestPermission(); refresh(); });
    refresh();
  }
}
