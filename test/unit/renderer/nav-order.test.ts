// The keyboard specs' tab stops (test/e2e/support/tab-order.ts, used by the
// web-mode and _electron specs) are the renderer's views in its nav order, so
// a view added to the nav fails here, not only where a browser or an Electron
// binary runs the specs.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { VIEWS } from '../../../renderer/components/Nav.js';
import { TAB_STOPS, VIEW_LABELS } from '../../e2e/support/tab-order.js';

test("the keyboard specs' views are the nav's, in its order (Alt+1…)", () => {
  assert.deepEqual([...VIEW_LABELS], VIEWS.map((v) => v.label));
  assert.equal(TAB_STOPS[0], 'Skip to content');
  assert.equal(TAB_STOPS.at(-1), 'Start dictation');
});
