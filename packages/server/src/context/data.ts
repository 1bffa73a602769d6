import type { Declarations } from '@platform/schema/contract';
import { checkSearch } from './search-checks.ts';
import type { RuntimeClient } from './transport.ts';
import type { DataClient, Row, SearchHit, Table } from './types.ts';

function tableName(name: unknown): string {
  if (typeof name !== 'string' || name === '')
    throw new TypeError('table name must be a non-empty string');
  return name;
}

/** `ctx.data`: table operations and named searches, each one contract route. */
export function createData(client: RuntimeClient, declared: Declarations): DataClient {
  return {
    table<T extends Row = Row>(name: string): Table<T> {
      const params = { table: tableName(name) };
      return {
        async list(options = {}) {
          const body = {
            ...(options.where === undefined ? {} : { where: options.where }),
            ...(options.limit === undefined ? {} : { limit: options.limit }),
            ...(options.select === undefined ? {} : { select: [...options.select] }),
          };
          const { rows } = await client.call('dataList', params, body);
          return rows as T[];
        },
        async getById(id, options = {}) {
          const body = {
            id,
            ...(options.select === undefined ? {} : { select: [...options.select] }),
          };
          const { row } = await client.call('dataGetById', params, body);
          return row as T | null;
        },
        async create(row) {
          const result = await client.call('dataCreate', params, { row });
          return result.row as T;
        },
        async updateById(id, patch) {
          const result = await client.call('dataUpdateById', params, { id, patch });
          return result.row as T;
        },
      };
    },
    async search(name, options) {
      client.requireFeature('search', 'data.search');
      const body = checkSearch(name, options, declared.searches);
      const { hits } = await client.call(
        'dataSearch',
        { name },
        {
          ...body,
          ...(body.vector === undefined ? {} : { vector: [...body.vector] }),
        },
      );
      return { hits: hits as SearchHit<never>[] };
    },
  };
}
