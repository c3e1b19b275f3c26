"""The base of every report block: validated without coercion, closed to keys it does not declare, dumped with
sorted keys.

Closed, so a misspelled key (`promts_sha256`) is refused where it is written, by the tier that builds the block,
and where it is read, by `bench compare` and the viewer, instead of passing as a key nobody reads. Strict, so no
value is coerced on the way in (an int is not turned into a float): a report read back and dumped again is the
same file.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer

Number = int | float  # strict: an int stays an int, as the tier gave it
Interval = Annotated[list[Number], Field(min_length=2, max_length=2)]  # [low, high]: JSON has no tuple


class Block(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")

    @model_serializer(mode="wrap")
    def _sorted(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        dumped: dict[str, Any] = handler(self)
        return dict(sorted(dumped.items()))

    def written(self) -> dict[str, Any]:
        """The block as the report file holds it: the keys its writer set, a block left unwritten out of it rather
        than a null."""
        return self.model_dump(exclude_unset=True)
