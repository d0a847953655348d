// The keyboard specs' expectations of the app's tab stops (web mode and
// _electron): the skip link, the views in the order of the nav (Alt+1…7),
// then the Dictate view's first control. test/unit/renderer/nav-order.test.ts
// checks this list against the renderer's own VIEWS, so a new view fails
// here, where the tests run without a browser, instead of only in the specs.
export const VIEW_LABELS = ['Dictate', 'Files', 'History', 'Devices', 'Models', 'Settings', 'Meeting'] as const;

export const TAB_STOPS = ['Skip to content', ...VIEW_LABELS, 'Start dictation'] as const;
