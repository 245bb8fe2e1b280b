import { ApiProperty, type ApiPropertyOptions } from '@nestjs/swagger';

/**
 * Documents, for OpenAPI, the properties a class inherits from a contract class: the contracts library
 * stays free of HTTP concerns and its class-validator rules stay the only rules.
 */
export function documentModel<T>(cls: new () => T, properties: { [K in keyof T]?: ApiPropertyOptions }): void {
  for (const [key, options] of Object.entries(properties)) {
    ApiProperty(options as ApiPropertyOptions)(cls.prototype as object, key);
  }
}
