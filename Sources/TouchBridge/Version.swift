/// The release, as `touchbridge --version` prints it. debian/changelog's newest entry must
/// carry the same number (debian/rules refuses to build a package when they differ).
public enum TouchBridgeVersion {
    public static let string = "0.1.0"
}
