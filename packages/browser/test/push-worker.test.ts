import { describe, expect, it } from 'vitest';
import { readNotification } from '../src/push-worker/index.ts';

describe('readNotification', () => {
  it('reads the notification JSON that notifications.send delivers', () => {
    expect(
      readNotification(
        '{"title":"Milk","body":"Buy milk","url":"/t/1","icon":"/i.png","tag":"t1"}',
      ),
    ).toEqual({ title: 'Milk', body: 'Buy milk', url: '/t/1', icon: '/i.png', tag: 't1' });
  });

  it('drops fields of the wrong type', () => {
    expect(readNotification('{"title":"Milk","body":3,"url":null}')).toEqual({ title: 'Milk' });
  });

  it('still shows a message that is not a notification, with its text as the title', () => {
    expect(readNotification('plain text')).toEqual({ title: 'plain text' });
    expect(readNotification('{"body":"no title"}')).toEqual({ title: '{"body":"no title"}' });
    expect(readNotification('')).toEqual({ title: 'New notification' });
  });
});
