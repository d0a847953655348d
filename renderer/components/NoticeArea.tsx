// Banners: what happened and what to do. Errors are announced assertively
// (role=alert), the rest politely (role=status).
import * as actions from '../store/actions.js';
import { useApp } from '../store/hooks.js';
import type { NoticeItem } from '../store/types.js';
import { Button } from './Button.js';

function Banner({ notice }: { notice: NoticeItem }) {
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
