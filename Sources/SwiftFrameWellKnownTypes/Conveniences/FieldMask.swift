// Conveniences for google.protobuf.FieldMask.

import SwiftFrame

extension Google_Protobuf_FieldMask {
    /// A mask of the given paths, in order: `FieldMask(paths: "name", "address.city")`.
    /// (An array still goes to the memberwise `init(paths: [String])`.)
    public init(paths: String...) {
        self.init(paths: paths)
    }
}
