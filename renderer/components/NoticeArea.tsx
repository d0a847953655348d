// Banners: app-wide states only (engine down or restarting, a device failed, the microphone, the
// connection); what a control caused is shown next to that control. Errors are announced assertively
// (role=alert), the rest politely (role=status); an info banner is news, announced once, and expires.
import { useEffect } from 'react';
import * as actions from '../store/actions.js';
import { useApp } from '../store/hooks.js';
import type { NoticeItem } from '../store/types.js';
import { Button } from './Button.js';

/** How long an info banner (e.g. "The engine was restarted …") stays. */
export const INFO_NOTICE_MS = 10_000;

function Banner({ notice }: { notice: NoticeItem }) {
  useEffect(() => {
    if (notice.level !== 'info') return;
    const timer = setTimeout(() => actions.dismissNotice(notice.id), INFO_NOTICE_MS);
    return () => clearTimeout(timer);
  }, [notice.id, notice.level]);
  return (
    <div
      className={`banner banner-${notice.level}`}
      role={notice.level === 'error' ? 'alert' : 'status'}
      data-code={notice.code}
      data-testid="notice"
    >
      <div className="banner-text">
        <p className="banner-message">{notice.message}</p>
        {notice.action ? <p className="banner-action">{notice.action}</p> : null}
      </div>
      <Button variant="quiet" aria-label={`Dismiss: ${notice.message}`} onClick={() => actions.dismissNotice(notice.id)}>
        Dismiss
      </Button>
    </div>
  );
}

export function NoticeArea() {
  const items = useApp((s) => s.notices.items);
  if (items.length === 0) return null;
  return (
    <section className="notices" aria-label="Notices">
      {items.map((n) => (
        <Banner key={n.id} notice={n} />
      ))}
    </section>
  );
}
