// The todo app's service worker (served as /sw.js, bundled by platform dev): shows the push
// notifications the reminder job sends and opens the app when one is clicked.
import { handlePushEvents, type PushWorkerScope } from '@platform/browser/push-worker';

handlePushEvents(self as unknown as PushWorkerScope);
