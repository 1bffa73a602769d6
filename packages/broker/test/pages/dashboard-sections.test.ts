// The dashboard knows no feature: it shows the sections it is given, and each section's browser
// module is found under the package's src (which the published package ships).
import { existsSync } from 'node:fs';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { aiSection } from '../../src/ai/ai-section.ts';
import type { BrokerEnv } from '../../src/http/broker-env.ts';
import { integrationSection } from '../../src/integrations/integration-section.ts';
import { cronSection, jobsSection } from '../../src/jobs/dashboard/jobs-section.ts';
import { orgSection } from '../../src/org/org-section.ts';
import { mailSection } from '../../src/outbox/mail-section.ts';
import { mountDashboard } from '../../src/pages/dashboard/dashboard-routes.ts';
import { brokerSourceFile } from '../../src/pages/dashboard/source-file.ts';
import { pushSection } from '../../src/push/push-section.ts';

const sections = [
  jobsSection,
  cronSection,
  aiSection,
  integrationSection,
  mailSection,
  orgSection,
  pushSection,
];

describe('the dashboard sections', () => {
  it('name browser modules that exist under src, with ids unique on the page', () => {
    for (const section of sections) {
      expect(existsSync(brokerSourceFile(section.script)), section.script).toBe(true);
    }
    expect(new Set(sections.map((s) => s.id)).size).toBe(sections.length);
  });

  it('render only the sections given, with their API paths filled with the app id', async () => {
    const app = new Hono<BrokerEnv>();
    mountDashboard(app, { appId: 'a b', sections: [cronSection, mailSection] });
    const html = await (await app.request('/_platform/dashboard')).text();
    expect(html).toContain('<section id="cron-section"');
    expect(html).toContain('<section id="mail-section"');
    expect(html).not.toContain('id="jobs"');
    expect(html).toContain('/v1/apps/a%20b/cron');
    const script = await app.request('/_platform/dashboard/dashboard.js');
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    const code = await script.text();
    // The cron module is in the bundle, the jobs module (its filters) is not.
    expect(code).toContain('No cron schedules are declared');
    expect(code).not.toContain('Totals cover');
  });

  it('refuses two sections with one id', () => {
    expect(() =>
      mountDashboard(new Hono<BrokerEnv>(), { appId: 'x', sections: [aiSection, aiSection] }),
    ).toThrow(TypeError);
  });
});
