// The Standard Schema v1 interface (https://standardschema.dev), copied as its authors ask so
// that no runtime dependency is needed to interoperate with other tools.

/** A schema that any Standard Schema consumer (form libraries, routers, ...) can validate with. */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly '~standard': StandardSchemaV1.Props<Input, Output>;
}

/** Types of the Standard Schema v1 interface. */
export declare namespace StandardSchemaV1 {
  /** The `~standard` property. */
  export interface Props<Input = unknown, Output = Input> {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown) => Result<Output> | Promise<Result<Output>>;
    readonly types?: Types<Input, Output> | undefined;
  }
  /** The outcome of `validate`. */
  export type Result<Output> = SuccessResult<Output> | FailureResult;
  /** A valid value. */
  export interface SuccessResult<Output> {
    readonly value: Output;
    readonly issues?: undefined;
  }
  /** The problems found. */
  export interface FailureResult {
    readonly issues: ReadonlyArray<Issue>;
  }
  /** One problem. */
  export interface Issue {
    readonly message: string;
    readonly path?: ReadonlyArray<PropertyKey | PathSegment> | undefined;
  }
  /** A path segment with its key. */
  export interface PathSegment {
    readonly key: PropertyKey;
  }
  /** Static input and output types. */
  export interface Types<Input = unknown, Output = Input> {
    readonly input: Input;
    readonly output: Output;
  }
}
