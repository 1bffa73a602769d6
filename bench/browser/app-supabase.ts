// The same app written against @supabase/supabase-js: createClient, getUser, functions.invoke.
import { createClient } from '@supabase/supabase-js';

const supabase = createClient('https://example.supabase.co', 'public-anon-key');

export async function main(): Promise<void> {
  const { data } = await supabase.auth.getUser();
  console.log(data.user);
  const { data: result, error } = await supabase.functions.invoke('echo', {
    body: { text: 'hi' },
  });
  if (error) throw error;
  console.log(result);
}
