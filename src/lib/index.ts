/**
 * Splatsort for other pages: `createViewer(container, options)` makes a
 * Gaussian-splat viewer in an element of the page (create-viewer.ts says
 * what it is and what it frees). Everything here is plain data or the
 * viewer's own interface: the page's panel (src/ui/) is built on these
 * names alone.
 */
export { createViewer } from './create-viewer';
export type { CaptureFraming, CaptureOptions, CreateViewerOptions, DrawnCamera, LoadLimits, LoadOptions, SceneInput, SplatViewer, SplatViewerEvents, Unsubscribe, ViewerSettingsInput } from './viewer-api';
export type * from './public-types';
export type { PinOnScreen, SavedView, SplatViews, TourTiming } from './views-api';
export { readViewLink } from './view-link';
export { CAMERA_HELP, FLIP_UP_KEY, TOUCH_HELP } from './controls-help';
export { FRAME_VIEWS, ORDER_SETTINGS, parseBox, PER_PIXEL_MAX_COST, RENDERER_SETTINGS, SAVE_FORMATS, saveLossesText, SCENE_FILE_ACCEPT, SCENE_FILES_TEXT, SORT_MODE_LABELS, UP_BY_CONVENTION } from './choices';
export { isTypingKey, PAGE_KEY_LISTENER } from './keys';
export { WebGpuUnavailableError } from '../gpu/webgpu-unavailable';
export type { FirstScene, PagePanel, PanelMount } from './page-panel';
