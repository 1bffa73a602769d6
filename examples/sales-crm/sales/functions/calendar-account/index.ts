import { defineFunction, s } from '@platform/server';

/** The team calendar account the sales app is connected to, through its `calendar` slot. */
export default defineFunction({
  input: s.object({}),
  handler: ({ integrations }) => integrations.use('calendar').call('account.get', {}),
});
