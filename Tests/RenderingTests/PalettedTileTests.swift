import CCairo
import Foundation
import Testing
import MapEngine
import TouchCore
@testable import Rendering
import TileSources

/// Palette PNG tiles are kept compact (packed indices and a table of cairo pixels) and expanded
/// when drawn; the expanded pixels must be the very bytes cairo's PNG reader gives, and a tile
/// cairo refuses must still be refused with a message.
@Suite struct PalettedTileTests {
    /// Small PNGs made for these tests (scripts in the commit message's spirit: random indices,
    /// random palettes): palette tiles at 8, 4, 2 and 1 bits, with and without tRNS (alphas 0,
    /// 1, 128, 254, 255 and entries past the tRNS list), Adam7 interlaced, odd widths (packed
    /// rows ending mid-byte), an index past the palette, extra image data and a bad ancillary
    /// chunk CRC (libpng warnings, which cairo ignores); and two non-palette PNGs.
    static let pngs: [String: String] = [
        "palette8Alpha": "iVBORw0KGgoAAAANSUhEUgAAACUAAAATCAMAAAAgYzSBAAACWFBMVEXuHQ0tIFWRwxFPkl+qU66j+nfqltRuVtqe7Z4fqUSnEwKbMyu5OmwsvVD886JF4fNvc9YPemIl03/yjJVZr+ZIpIeNIPKH58YEUtCsBGwd95E+uYS6mnQQfgz+JNsQybFwh4uSHgKDuwZyQ+QSoS28EWaZg2wEvdgwho/Db0+ZHFXpnDlULxpnZ3e9kvwAItznVDOp+8kC0elkDzsMiaZiXGXFPYluZ4RFuUqcKyz3mdDXqmd/e5iLxphVY82tcogIY663lu6+zM+MUm8Th9CweVOn9hl+WGJuMT7YoB99QUmxgAtvsNQvgqUo17O+em2kSvPcERxW1xseIa7TVry1jhEN3vtZDKZzRChXH9vxfhqoJXQMCwNJLq9ppw8e9UFZSdgiHKx0pmaO+mFsfuZFRNnp/c8zM8tXipU9HWVQCdFRXUZRvrQcncaFEIX8mlx+KBKPt/7Y01wdff4W9YcaKpPAWpweOetqL9+EoQe5tPsBndvEmD9RgHF0wqJAS6IqK61UTa6V2GZqwzLIAPvsjc3+SsGY86Mamn9sGy3W3tCLZYzLdt1pcNdNp2VS62cd87JYnJCob+sSV8fmkUtxof3eZQeKwJsK1ECSdLZjK4vvlGfV3wyUM6EzCEXsJn7nu5Tz//c7IlIZKC680u0uyofvmo6E9zK0nNzXh6E0EpIFRe7kB9PhA1FydaqFtHTz3aGnzVSRCRjT+ouL5XDKgqIj2Slrqnhmht2dMXDKG/sJPcwBveFRDXCaCdT72RPz2vQgmH15Ad5HubvX1JQcHOQIknZwOSZY7idqAAAAQnRSTlMAgP8B/k3Um7uUWY44DX/E1oGizUYfR2RNa6k/I57RKfJI0awJ3b4atRn0vwLPejttf7gdiCCNYkKAnbKjV6owi6snNmaTAAAC3UlEQVR4nAHSAi39AAIMwFkEd75FeaINujJPQhO/t3wFnpCGryNnfLuXZC4yQCatHDYADIlOUFAMKWsXsMVPQKhnehOKFYuiPTmIQ5MpSwy5fJZkfDiNaACEoHETdcA3OntRMF2ZB76TkYRsDVSUK447nFBeLME2TW9bcpcXAIQbhQIxk7SNwy1zdnKBI4mMeXMDS0MvAndWwFQ2DUQZhKqzAwcAHHi1TZw0xxnHBnSJwjimB2YfbQ69ig8wiUNEW1iLlGpnAYbAVgAUwb8IoLtIU1IeVSCJPn5IcR9BPxKua0+vM3tdIDaBkiZLFW9wAIdjx4WawiepjyQqlohRfkhoEJ08K7YmxzxtjFKKwnHAgCBJPn4AQIAwXwGiH1V+E24Wg2A+KxJLEklWw3ZSJia+RE5iU5ODoSRvGgDBp6DGQTw3Noteum9gRRROZ6U0UAMJkZUPWqymfWdsnEKwTXPFACnAajYwNVy8tTI6w6JhEnSoMlq4gCCVe7xxpRYhPG/EZDqvZmAAfFWxPVNiNix+AnkZaKZ7GS9/B0N4ITIoQSUJH0pwDRZLnKVCiABPpWCEQ5AIxqUHtYlIiJwStA5GS51ZezbEgBsLX196clTCfl04AAKZHVmEJmEdnI4UCrZkHK2+diSmMoxxDK1EBJcbxRgjeThPpEwATZtUjQRvFmIAonYaU4nAUrx1xA58F4ild0ybH7mXqifDEq1SrgAJJ5KtM0u/axUbw2EOfYNoacOsQ5M9kIC8Z5ohxbw4VDuoUXhQADaeGTTAh3c1cG9db54NMh8/AUINQrZcbWK0C4iPhcQDBqCKwVIAs5dSqixblZupUZk9RJJxchwgBiN0gSe3cZYBASxhYKizZhlHMQAzJLYEm3dTJnk4bLNcQrW6cngWLBo/fz9PGkKEuZRBUnNCgmQCAHNEvymDNjYaCFsdtgowWsRTOjWBLCmTm54CfQi2w6d1aWpVhYqYfg1xgGR4/wAAAABJRU5ErkJggg==",
        "palette8Opaque": "iVBORw0KGgoAAAANSUhEUgAAACgAAAAeCAMAAABpA6zvAAADAFBMVEUT8kCE7tNX+3dPFqCard5D0pc6oTOa0joJf7cQ25KkxbpWogSudeIQ8aWRysHjr2wO7QjdVEA6OHz6A/ldZrFi/bFjweEjJ6DE1sqm59EnmKzgNuShL6GtP6PYeF6ULeLoVsF4qJFIvOZfCjip1neRFynvY/IKYPM2d2WtOdhQbYaLVuWw+dGy479ydIPZCi54g1L7OaPvZjWMbFW/Zy9dRKMckalyBSsTdLAT3t5catMQ9NibL7h+ExgoOd7QPZ1b5tW0OyLz3cE80x3Fd4FFy+sqzSPiXWlirREqLGGoeM5avEnmxJRlVjUsFZepSQGBcpkxkHagrOX56MjCeMQESxx+PJzpxS5JpHmg9Z7XYkRtEUs5BUnJjdhLR8gcEqozYdxdtzrWW3maJhGVEBJFYKTmAATLNS1f/IZdA0jzKXhVMJiKcw05C4RUXMzKdfeT6yvoZSVQQcJzz5cvkNLdH55h5xj/uboN77/ogHdpqhlV0j9zOmxXBTbhmXfVE1nYS6UC5v+wMKZxpMJZIr8i5Y4/aJ88vEsOkW/S7jHQMNWOE01RX9VkZvWAK1peghNLLCFAhXAo8yZlrjk7JdUtN9cAFyU1UeJG0j/WLHZ8DHCzondFcFKA3dcOFEueYhFiv82CfyMmX09GRuZF5DzpdFFq+9ftuYWAqfXVbYvkppHYv42hXCHF8h3nGivsxy8hc1fpaxIt4U3EnwHy4tJIC9v+vI8e17DWWCMQLxxUhtmPF7uq6d5IMVwevMEg0twB63h9TcDNYquGQjquYD8n+7C6UwkXF0uWCZgLzP+WvNJykDTiktbD180VsqQxsU5iVk7e3OuCQq2Hhj+rBNqn7DICHrvz2PtvgJOGNVvOfr1ReQn/4uhL1Ol13jfrqvTLwxRrHz8F6wsGk2Nv/SOQM7ude/IFSacl2DaTwlEE3ZbkqHLmMKguizplNZJYjYXCINy0gxkBn4s5t3zPAO3PqYH+h+XITNUu0Ot1qaLTneQiNj9+cekF1DmtckRARR6fkydxAAAE2UlEQVR4nAHOBDH7AHcONx/00AfFgdlTk5UULGkjNlUp5Fli0sPArggQFtQsvZxwUm7zzy8AZAde+C+tt9oFfCNXgBRaKipT5DpB53SSMLq0kc36QewHmRzwahcr2wCSW3BIvT0UhnEqG052xpEfE+1Cnb69LYy+as+Ytb98c1/cBYgzR/mbAHOLpzU3Ayv9csD5B7NmEb+rYJyz6WBLtDRLe5SKps0B9UfVcHJ5g88AVNBepoaJ4dT+J5qtuOYRQYXhdjImZfcziajwkgFRYZ7n/70KOX7QtQAb3eK985SRDJVTTlswLT5lwYf0m4xVC1ZwXy5nQjNnxhSTpuwvA8E6ABXn1Ubc0uHLsNXaKf49KuWIEOnYZqcZyExOszNuIe9tuUWSBGalk+8A60X/RGHrHuDpXcouFmIzalz1Nr9pcIM8dvqT+zWpEod14XdyLvlqMwC+a5vO8V+EjHvfw+LwmlfC2i1WJIJU1CYwfbxDyiZ/UfbHA1caV5OAAF1MSoCPejwRAWXDGiB/J3a/3zVwORLOWVS0hET940PyWosZ0SRXP5EAzCrYidGxTYSsmm0lqYpvDs5i68tOy/Xr4G+qSLKrvBpMS8K1zV3fYQAeAsKh8eZl4JTMmzUKrAfG55VQ4aDwdOOGDL+gYmsluLtGSichrPtEAGjtMI6b+fG8td7jGkMdTe3hRBVwhK6vDiVx/KF4GhpvYUFXY1TitPYA27xnVoWKlY90vR12YrXk3hzpbtGtS7RAeCVDrX+qb9FF7XVh+vSg3gDbqquZiDq3swEEIZRgRoJH8j0w8uGmJfqmm0C3CdOiNodeZa16IfsXAJkCVQ/aSmfPkuDZSFs+DxHbJgbT/MRzHC34zQuuLsSYg1lgAIgtpHoAwPl+mpQeu4674vXv6FEITtZCT0qO7yia/mZPmrKIUoZDZrPs+VqvrQCeND8VEG7sTB5pjnoHyD2ytBCgJ3bBPROxEQsb3soSfo3ZJ0KNpwz1AIuwJ5MHqm5YKcRtgnTu1qIeGYU1bWEEzWVNmQhdezRdL9UlMWa3ddoADwmvEY593X8Vmem9mLzQVGbdET4o5nS6mhjvjI19fiXx9HG7HsQDuABnhhTp0QW+3xgO8auEuSs47fTfR02sPEYDt36JPj6IwjfBhnU/vDA0ALi2YMnMf0OVWtS6dgl7yuWDj3lP6QC01PEP4CMbZIeamMYcw78eH/kA99xIv+AZwt2EnXi65zYn5vmQKtVYEH5aQbCvAISl8l3DHm2yFO+OGgC0AQossBQGiYQoPBB4SCj/86/Vp5/L3EQTUQQmHLSVvPK9zQYNswpAAI5PXsrKgCRooVKzWHEM+QH0eR9bQLhBMS/TPAUujyZbbGyTV4yCyT4A6J/QihDOvXgDf9RyNz5lroC1EGStGUsVLg4Ld/wcLMkGpNx0JGUDqgDjr4Lh4DfxNKECBwVPFOLH2JxwITOmNVvZHy5bOHLbb8LcD8KVPmXlAI0flbJorLVHCN3SeKV1mee9/zGhRdi1w8aqh+AqpG2MHA+xS5Z7f6UAtbtKg5uhdMN6xIazDnN7DBLLsFhSEEfitZvVdcf5A+QHCh02Tt2LBQAPujqn2oXHeEBbcmxd0zn7i+gX7P0IfDdktC3pOg3XSN4PMT+blNSJ9odPPjhqtLUAAAAASUVORK5CYII=",
        "palette4": "iVBORw0KGgoAAAANSUhEUgAAAA0AAAAJBAMAAAAbVLtZAAAAMFBMVEVHOfhnPv7hRsWq+a49REDt6MmA88x+E0HfgWqmAB+tmoqErgQ3ctgGaY5zDiZyxL9P0P1qAAAAU0lEQVR4nAFIALf/AIaFEEDPwzAAYOddTWxHUAClLY/AdZrAAGYNgmuLjFAAeipMaQJ5UACvTstKbXhQAIZYwILvXuAAot3ICQSdIAA7c4ge1pag/dIc8gfBs4YAAAAASUVORK5CYII=",
        "palette4Alpha": "iVBORw0KGgoAAAANSUhEUgAAAA0AAAAJBAMAAAAbVLtZAAAAIVBMVEXYM5w/2VNlwt4AIU2zPlOy4l5YyJ2S1c10kuLylXh5s2Ib6vWVAAAAA3RSTlMAMsiCudotAAAAUUlEQVR4nGMwX2bSaWTlwMDZEDGLtaWBYamCYfoqpQkMmYWLJ7UGKTCUTymbWjTdgME0tCLZ2FSBwZW50KlQMIEheZESR6tCA0OzOsfk0CoBAD3dFhs1PTVlAAAAAElFTkSuQmCC",
        "palette2": "iVBORw0KGgoAAAANSUhEUgAAAAcAAAAFAgMAAAD09B5LAAAADFBMVEUv0ATkZpk+1W43Pt1u6SEvAAAAF0lEQVR4nGNI/sPw4wiDLQ/Dwz8MWm8AMGYGWDEtvyUAAAAASUVORK5CYII=",
        "palette1": "iVBORw0KGgoAAAANSUhEUgAAAAkAAAADAQMAAAB7xLc1AAAABlBMVEV4PfkwuzoFn1goAAAAAXRSTlMAQObYZgAAABFJREFUeJxjcGZgkGhg0G8AAAV3AYvoNjGiAAAAAElFTkSuQmCC",
        "palette8Interlaced": "iVBORw0KGgoAAAANSUhEUgAAABUAAAARCAMAAAFyXyckAAAAeFBMVEWNu/HK0vV/tidlu6Ir8WQ7IvJauEJ3QwK5lNPss/uvVyQAwZleFqmGouu79GuDpDVocjL9Pyd7gg2RhkLTKbIISEu6LZoQi8lKttZHkCiDHuSymh3eHBaa7dDHzibZsVQJKz6nq1YsQkuCCjKNOeDZLQ/ozkA7aCqVqpP4AAAAA3RSTlMJAP/YpRDcAAABHUlEQVR4nA3NC7pEIAAG0F+J6IEQlTIzKfvf4b0LON9ByIClBJ+7gU4t6ksh+Q2f6GA4RLw23WG7tdSI494QzCMbOH65ZxaqNa2Af+bAfHZ9pRDiCuz0l90Z7FtGrZi7j4LGftZx2KLpvriXnyLd6cQXI3mNr09yIyoP43oe5ga2oTAGdsgFYCzMq23rP6tTU/R7PDPKhLf7mSsV8D2vuufL43ByzE95yX/t2z4KsfovI2ENlWdhOeBDSg3ljmQqmRSliEW+6EJclMs1l4uelBpPHU0gctmVILRUpXZVF0+XMf8Xlu7M99WY1gcTm7WJE9SjZB7WqZ0Gv/mMSlLnEZcrfutDsz6oqJU/kJLg8ENy4dPGm2llXXv95o/9A12MGoDOW1JbAAAAAElFTkSuQmCC",
        "palette4Interlaced": "iVBORw0KGgoAAAANSUhEUgAAAAsAAAAKBAMAAAHn2YkmAAAAMFBMVEXR9S8gJApALFEmyHQlEC9Cy+cGD4VO0Cc9SbEmLUAkawg8lT4pN0dkziv6A1xRsKxUpouPAAAAXklEQVR4nAFTAKz/ANgAvgBgAOAASNAA+WAASdAARFAAnKNQACC9egBAlGAAqErwAMJ1gAAI7JAAOxBwAC9Vs6OfoAAZaLgTTrAACbGzRH1AAFOQxKWg8ACt4r/lhXDkfSC8cRj7AQAAAABJRU5ErkJggg==",
        "indexBeyondPalette": "iVBORw0KGgoAAAANSUhEUgAAAAgAAAAICAMAAADz0U65AAAAD1BMVEUqt/MDJ5N+Uqlc1KCd86OK2/JeAAAAAXRSTlNkCjl9JwAAADVJREFUeJwVi8ERAEEIgzBuNP1XfN6TAZAjeY3U2/XMW3VlzHJki9rfVEjjPqDmjp5ALsvwASSmAQWtQt6/AAAAAElFTkSuQmCC",
        "extraImageData": "iVBORw0KGgoAAAANSUhEUgAAAAgAAAAICAMAAADz0U65AAAAD1BMVEWJZpfbPQkjc+vsx1SOGY+zS1F8AAAAMUlEQVR4nG2KsQ3AQBDCsGH/mXP6Oi6wBERWW3J0C7GXjWEDJG0n78BNLKJXm9PzHx8baAB6d3gOzwAAAABJRU5ErkJggg==",
        "badAncillaryCRC": "iVBORw0KGgoAAAANSUhEUgAAAAgAAAAICAMAAADz0U65AAAAD1BMVEWIadDg14ykWxYCrUc8XhSyhhmeAAAAA3RFWHRhAGLcSaI6AAAAMElEQVR4nB2LuQEAMBCC8Nl/5ngpLFRAjcDFCZWN2SAvRUHanMTVsPWDz/jv+EnoARAFAHF1uBC1AAAAAElFTkSuQmCC",
        "rgb": "iVBORw0KGgoAAAANSUhEUgAAAAoAAAAHCAIAAAC+zks0AAAA5ElEQVR4nAHZACb/AHiFF9kqn6WyHgCNinaCYiLb+8yELO31FT7pQsNaLQCuJsklgmWiHvkOR0K3ZNixqzWPRCleiLXsoAgXxl8A62sA+waUX87ABI5pD3/Bks0DebWBkjyiPm6+qqbqAAcvpzX3jC79pSL3CtbVHIJ8ZZN1zLvfAKvEJzAfRQDIZFvSElD/qTUQizNd/ezy7dAWTIQ9vxUdl2UDkrEAtxWEYaKcrU18O/srJbttEOwQzJUKvT3tOXpZg3rCAHZQlsF3wF2k16f1nOlTrBWXvLcLM/ZbHVzzoYDtYkljZ/PwcfbjAAAAAElFTkSuQmCC",
        "rgba": "iVBORw0KGgoAAAANSUhEUgAAAAoAAAAHCAYAAAAxrNxjAAABKklEQVR4nAEfAeD+ANekKDgg7NgFCHqFEdjGiTF2+OXFaDcdqbn8cK9OoGGOPeWYcbfZQ6wArAQNhj454yWSwlAiAXRh0BwSdTdth9D6txtfGYMjax7h9SIuCqLTGgD68EX2yTZZMoOrCK9pzzuyc2E/XJvElo+M2Vqh+aR5rf9jD5fogZpgALCln6Oy8f7O6KHCTqPMgl+jGCEgQA8rUmROfn6k5zPyTWLC6vIzyF0ARPtdFD0cTNryLht6+fZ2ZXBdCyPOqJT7x6+s5HoDT2jTOna89p3COgBGoMmh+mck0erPqQlKcrtX27Pj+6Q2/ueo/eqPJ6CtKr2zoSXaJTlXAAtoDg7h6pGgdcW7rNK/rbhvrc6Gx663u0kQzdfG36ETTXxV07J6NgXrc5NnES6bSgAAAABJRU5ErkJggg==",
    ]
    /// Palette PNGs cairo refuses: cut in half, and a flipped byte in the image data.
    static let corrupt: [String: String] = [
        "truncated": "iVBORw0KGgoAAAANSUhEUgAAACgAAAAeCAMAAABpA6zvAAADAFBMVEUT8kCE7tNX+3dPFqCard5D0pc6oTOa0joJf7cQ25KkxbpWogSudeIQ8aWRysHjr2wO7QjdVEA6OHz6A/ldZrFi/bFjweEjJ6DE1sqm59EnmKzgNuShL6GtP6PYeF6ULeLoVsF4qJFIvOZfCjip1neRFynvY/IKYPM2d2WtOdhQbYaLVuWw+dGy479ydIPZCi54g1L7OaPvZjWMbFW/Zy9dRKMckalyBSsTdLAT3t5catMQ9NibL7h+ExgoOd7QPZ1b5tW0OyLz3cE80x3Fd4FFy+sqzSPiXWlirREqLGGoeM5avEnmxJRlVjUsFZepSQGBcpkxkHagrOX56MjCeMQESxx+PJzpxS5JpHmg9Z7XYkRtEUs5BUnJjdhLR8gcEqozYdxdtzrWW3maJhGVEBJFYKTmAATLNS1f/IZdA0jzKXhVMJiKcw05C4RUXMzKdfeT6yvoZSVQQcJzz5cvkNLdH55h5xj/uboN77/ogHdpqhlV0j9zOmxXBTbhmXfVE1nYS6UC5v+wMKZxpMJZIr8i5Y4/aJ88vEsOkW/S7jHQMNWOE01RX9VkZvWAK1peghNLLCFAhXAo8yZlrjk7JdUtN9cAFyU1UeJG0j/WLHZ8DHCzondFcFKA3dcOFEueYhFiv82CfyMmX09GRuZF5DzpdFFq+9ftuYWAqfXVbYvkppHYv42hXCHF8h3nGivsxy8hc1fpaxIt4U3EnwHy4tJIC9v+vI8e17DWWCMQLxxUhtmPF7uq6d5IMVwevMEg0twB63h9TcDNYquGQjquYD8n+7C6UwkXF0uWCZgLzP+WvNJykDTiktbD180VsqQxsU5iVk7e3OuCQq2Hhj+rBNqn7DICHrvz2PtvgJOGNVvOfr1ReQn/4uhL1Ol13jfrqvTLwxRrHz8F6wsGk2Nv/SOQM7ude/IFSacl2DaTwlEE3ZbkqHLmMKguizplNZJYjYXCINy0gxkBn4s5t3zPAO3PqYH+h+XITNUu0Ot1qaLTneQiNj9+cekF1DmtckRARR6fkydxAAAE2UlEQVR4nAHOBDH7AHcONx/00AfFgdlTk5UULGkjNlUp5Fli0sPArggQFtQsvZxwUm7zzy8AZAde+C+tt9oFfCNXgBRaKipT5DpB53SSMLq0kc36QewHmRzwahcr2wCSW3BIvT0UhnEqG052xpEfE+1Cnb69LYy+as+Ytb98c1/cBYgzR/mbAHOLpzU3Ayv9csD5B7NmEb+rYJyz6WBLtDRLe5SKps0B9UfVcHJ5g88AVNBepoaJ4dT+J5qtuOYRQYXhdjImZfcziajwkgFRYZ7n/70KOX7QtQAb3eK98w==",
        "idatCRC": "iVBORw0KGgoAAAANSUhEUgAAACgAAAAeCAMAAABpA6zvAAADAFBMVEUT8kCE7tNX+3dPFqCard5D0pc6oTOa0joJf7cQ25KkxbpWogSudeIQ8aWRysHjr2wO7QjdVEA6OHz6A/ldZrFi/bFjweEjJ6DE1sqm59EnmKzgNuShL6GtP6PYeF6ULeLoVsF4qJFIvOZfCjip1neRFynvY/IKYPM2d2WtOdhQbYaLVuWw+dGy479ydIPZCi54g1L7OaPvZjWMbFW/Zy9dRKMckalyBSsTdLAT3t5catMQ9NibL7h+ExgoOd7QPZ1b5tW0OyLz3cE80x3Fd4FFy+sqzSPiXWlirREqLGGoeM5avEnmxJRlVjUsFZepSQGBcpkxkHagrOX56MjCeMQESxx+PJzpxS5JpHmg9Z7XYkRtEUs5BUnJjdhLR8gcEqozYdxdtzrWW3maJhGVEBJFYKTmAATLNS1f/IZdA0jzKXhVMJiKcw05C4RUXMzKdfeT6yvoZSVQQcJzz5cvkNLdH55h5xj/uboN77/ogHdpqhlV0j9zOmxXBTbhmXfVE1nYS6UC5v+wMKZxpMJZIr8i5Y4/aJ88vEsOkW/S7jHQMNWOE01RX9VkZvWAK1peghNLLCFAhXAo8yZlrjk7JdUtN9cAFyU1UeJG0j/WLHZ8DHCzondFcFKA3dcOFEueYhFiv82CfyMmX09GRuZF5DzpdFFq+9ftuYWAqfXVbYvkppHYv42hXCHF8h3nGivsxy8hc1fpaxIt4U3EnwHy4tJIC9v+vI8e17DWWCMQLxxUhtmPF7uq6d5IMVwevMEg0twB63h9TcDNYquGQjquYD8n+7C6UwkXF0uWCZgLzP+WvNJykDTiktbD180VsqQxsU5iVk7e3OuCQq2Hhj+rBNqn7DICHrvz2PtvgJOGNVvOfr1ReQn/4uhL1Ol13jfrqvTLwxRrHz8F6wsGk2Nv/SOQM7ude/IFSacl2DaTwlEE3ZbkqHLmMKguizplNZJYjYXCINy0gxkBn4s5t3zPAO3PqYH+h+XITNUu0Ot1qaLTneQiNj9+cekF1DmtckRARR6fkydxAAAE2UlEQVR4nAHOBDEEAHcONx/00AfFgdlTk5UULGkjNlUp5Fli0sPArggQFtQsvZxwUm7zzy8AZAde+C+tt9oFfCNXgBRaKipT5DpB53SSMLq0kc36QewHmRzwahcr2wCSW3BIvT0UhnEqG052xpEfE+1Cnb69LYy+as+Ytb98c1/cBYgzR/mbAHOLpzU3Ayv9csD5B7NmEb+rYJyz6WBLtDRLe5SKps0B9UfVcHJ5g88AVNBepoaJ4dT+J5qtuOYRQYXhdjImZfcziajwkgFRYZ7n/70KOX7QtQAb3eK985SRDJVTTlswLT5lwYf0m4xVC1ZwXy5nQjNnxhSTpuwvA8E6ABXn1Ubc0uHLsNXaKf49KuWIEOnYZqcZyExOszNuIe9tuUWSBGalk+8A60X/RGHrHuDpXcouFmIzalz1Nr9pcIM8dvqT+zWpEod14XdyLvlqMwC+a5vO8V+EjHvfw+LwmlfC2i1WJIJU1CYwfbxDyiZ/UfbHA1caV5OAAF1MSoCPejwRAWXDGiB/J3a/3zVwORLOWVS0hET940PyWosZ0SRXP5EAzCrYidGxTYSsmm0lqYpvDs5i68tOy/Xr4G+qSLKrvBpMS8K1zV3fYQAeAsKh8eZl4JTMmzUKrAfG55VQ4aDwdOOGDL+gYmsluLtGSichrPtEAGjtMI6b+fG8td7jGkMdTe3hRBVwhK6vDiVx/KF4GhpvYUFXY1TitPYA27xnVoWKlY90vR12YrXk3hzpbtGtS7RAeCVDrX+qb9FF7XVh+vSg3gDbqquZiDq3swEEIZRgRoJH8j0w8uGmJfqmm0C3CdOiNodeZa16IfsXAJkCVQ/aSmfPkuDZSFs+DxHbJgbT/MRzHC34zQuuLsSYg1lgAIgtpHoAwPl+mpQeu4674vXv6FEITtZCT0qO7yia/mZPmrKIUoZDZrPs+VqvrQCeND8VEG7sTB5pjnoHyD2ytBCgJ3bBPROxEQsb3soSfo3ZJ0KNpwz1AIuwJ5MHqm5YKcRtgnTu1qIeGYU1bWEEzWVNmQhdezRdL9UlMWa3ddoADwmvEY593X8Vmem9mLzQVGbdET4o5nS6mhjvjI19fiXx9HG7HsQDuABnhhTp0QW+3xgO8auEuSs47fTfR02sPEYDt36JPj6IwjfBhnU/vDA0ALi2YMnMf0OVWtS6dgl7yuWDj3lP6QC01PEP4CMbZIeamMYcw78eH/kA99xIv+AZwt2EnXi65zYn5vmQKtVYEH5aQbCvAISl8l3DHm2yFO+OGgC0AQossBQGiYQoPBB4SCj/86/Vp5/L3EQTUQQmHLSVvPK9zQYNswpAAI5PXsrKgCRooVKzWHEM+QH0eR9bQLhBMS/TPAUujyZbbGyTV4yCyT4A6J/QihDOvXgDf9RyNz5lroC1EGStGUsVLg4Ld/wcLMkGpNx0JGUDqgDjr4Lh4DfxNKECBwVPFOLH2JxwITOmNVvZHy5bOHLbb8LcD8KVPmXlAI0flbJorLVHCN3SeKV1mee9/zGhRdi1w8aqh+AqpG2MHA+xS5Z7f6UAtbtKg5uhdMN6xIazDnN7DBLLsFhSEEfitZvVdcf5A+QHCh02Tt2LBQAPujqn2oXHeEBbcmxd0zn7i+gX7P0IfDdktC3pOg3XSN4PMT+blNSJ9odPPjhqtLUAAAAASUVORK5CYII=",
    ]

    static func bytes(_ image: CairoImage) -> (format: cairo_format_t, pixels: [UInt8]) {
        cairo_surface_flush(image.surface)
        let stride = Int(cairo_image_surface_get_stride(image.surface))
        let data = cairo_image_surface_get_data(image.surface)!
        var out: [UInt8] = []
        for y in 0..<image.height { out += UnsafeBufferPointer(start: data + y * stride, count: image.width * 4) }
        return (cairo_image_surface_get_format(image.surface), out)
    }

    @Test(arguments: pngs.keys.sorted())
    func theCompactTileExpandsToTheBytesCairoDecodes(name: String) throws {
        let data = try #require(Data(base64Encoded: Self.pngs[name]!))
        let old = try #require(CairoImage.png(data), "cairo decodes \(name)")
        let compact = try TileImageDecoder.decodeCompact(data)
        let isPalette = data[25] == 3
        let new: CairoImage
        switch compact {
        case let .palette(p):
            #expect(isPalette)
            #expect(p.bytes < p.width * p.height * 4 || p.width * p.height < 512, "smaller than its pixels")
            new = p.expanded()
        case let .image(img):
            #expect(!isPalette, "only non-palette PNGs stay images")
            new = img
        }
        let a = Self.bytes(old), b = Self.bytes(new)
        #expect(a.format == b.format, "\(name): the same cairo format (RGB24 without tRNS, ARGB32 with it)")
        let differing = zip(a.pixels, b.pixels).filter { $0 != $1 }.count
        #expect(a.pixels.count == b.pixels.count && differing == 0, "\(name): \(differing) bytes differ")
    }

    @Test func aTileWithTransparencyIsPremultipliedAsCairoDoes() throws {
        let data = try #require(Data(base64Encoded: Self.pngs["palette8Alpha"]!))
        guard case let .palette(p) = try TileImageDecoder.decodeCompact(data) else { Issue.record("not compact"); return }
        #expect(p.format == CAIRO_FORMAT_ARGB32)
        let pixels = Self.bytes(p.expanded()).pixels
        let alphas = Set(stride(from: 3, to: pixels.count, by: 4).map { pixels[$0] })
        #expect(alphas.contains(0) && alphas.contains(128) && alphas.contains(255), "transparent, half and opaque entries drawn")
    }

    @Test(arguments: corrupt.keys.sorted())
    func aCorruptPaletteTileIsRefusedWithAMessage(name: String) throws {
        let data = try #require(Data(base64Encoded: Self.corrupt[name]!))
        #expect(CairoImage.png(data) == nil, "cairo refuses it too")
        do {
            _ = try TileImageDecoder.decodeCompact(data)
            Issue.record("\(name) decoded")
        } catch let e as TileImageDecoder.Failure {
            guard case let .corrupt(format, reason) = e else { Issue.record("\(e)"); return }
            #expect(format == "PNG" && reason.hasPrefix("libpng: ") && reason.count > 8, "\(e)")
        }
    }

    /// A tile set of one palette tile per corrupt or good PNG: the source skips the bad tile with
    /// a warning naming the file and the tile, as it did when cairo decoded every tile.
    @Test func theSourceWarnsAboutACorruptPaletteTile() throws {
        final class OneTile: TileSource, @unchecked Sendable {
            let data: Data
            init(_ d: Data) { data = d }
            var path: String { "/tmp/one.mbtiles" }
            var metadata: TileSetMetadata { TileSetMetadata(minZoom: 0, maxZoom: 0) }
            func tileData(z: Int, x: Int, y: Int) throws -> Data? { data }
        }
        let source = RasterTileSource(tiles: OneTile(try #require(Data(base64Encoded: Self.corrupt["truncated"]!))))
        #expect(source.image(z: 0, x: 0, y: 0) == nil)
        #expect(source.warnings.count == 1 && source.warnings[0].contains("/tmp/one.mbtiles: tile 0/0/0 is skipped: it is not a decodable PNG"))
    }

    /// Every tile of the fixture (palette PNGs at 1, 2 and 4 bits) comes out of the source with
    /// the bytes cairo decodes from the same tile.
    @Test func theFixturesTilesComeOutAsCairoDecodesThem() throws {
        let tiles = try MBTiles(path: fixture("node-mbtiles_plain_1.mbtiles"))
        let source = RasterTileSource(tiles: tiles, capacity: 400)
        var checked = 0
        for z in 0...4 { for x in 0..<(1 << z) { for y in 0..<(1 << z) {
            guard let data = try tiles.tileData(z: z, x: x, y: y) else { continue }
            let old = try #require(CairoImage.png(data))
            let new = try #require(source.image(z: z, x: x, y: y))
            let a = Self.bytes(old), b = Self.bytes(new)
            #expect(a.format == b.format && a.pixels.elementsEqual(b.pixels), "tile \(z)/\(x)/\(y) differs")
            checked += 1
        }}}
        #expect(checked == 285)
        #expect(source.compactTileCount == checked, "all kept compact")
        #expect(source.cachedBytes < checked * 256 * 256 / 2, "at most 4 bits a pixel: \(source.cachedBytes)")
        #expect(source.scratchBytes == 0, "whole tiles asked for are expanded anew, not into the drawing's scratch")
    }

    /// The fixture's tiles as plain RGB/RGBA PNGs (decoded by cairo, written again by cairo):
    /// the same pixels, drawn from whole cairo images, never expanded by region.
    final class UnpalettedTiles: TileSource, @unchecked Sendable {
        let inner: any TileSource
        init(_ inner: any TileSource) { self.inner = inner }
        var path: String { inner.path }
        var metadata: TileSetMetadata { inner.metadata }
        func tileData(z: Int, x: Int, y: Int) throws -> Data? {
            guard let data = try inner.tileData(z: z, x: x, y: y), let image = CairoImage.png(data) else { return nil }
            var out = Data()
            let status = withUnsafeMutablePointer(to: &out) { box in
                cairo_surface_write_to_png_stream(image.surface, { closure, bytes, length in
                    closure!.assumingMemoryBound(to: Data.self).pointee.append(bytes!, count: Int(length))
                    return CAIRO_STATUS_SUCCESS
                }, box)
            }
            return status == CAIRO_STATUS_SUCCESS ? out : nil
        }
    }

    static func pixels(_ f: FrameBuffer) -> [UInt8] {
        Array(UnsafeBufferPointer(start: f.pixels.assumingMemoryBound(to: UInt8.self), count: f.stride * f.height))
    }

    /// Palette tiles expanded only where a draw reaches them give the frames that whole decoded
    /// tiles give, byte for byte: a pan through the base-map cache (its build and its scroll
    /// strips), a fractional zoom (bilinear sampling at tile edges), a turned and a tilted frame
    /// (cells of a tile), and a zoom past the set's deepest tiles (parts of ancestors).
    @Test func framesFromExpandedRegionsEqualFramesFromWholeTiles() throws {
        let mbtiles = try MBTiles(path: fixture("node-mbtiles_plain_1.mbtiles"))
        let plain = RasterTileSource(tiles: UnpalettedTiles(mbtiles))
        #expect(plain.find(z: 2, x: 1, y: 1).map { if case .image = $0.pixels { true } else { false } } == true, "the reference tiles are whole images")
        let paletted = RasterTileSource(tiles: mbtiles)
        let a = MapRenderer(raster: paletted), b = MapRenderer(raster: plain)
        let fa = OwnedFrameBuffer(width: 800, height: 480), fb = OwnedFrameBuffer(width: 800, height: 480)
        var scene = MapScene(camera: CameraPosition(target: Coordinate(latitude: 30, longitude: 10), zoom: 3))
        var cameras: [(CameraPosition, MapRenderer.Quality)] = [(scene.camera, .final)]
        // A pan at a whole zoom: steps under and over the cache's scroll step.
        for (i, step) in [(7.0, 3.0), (40, 0), (0, -65), (120, 90), (-300, 10), (15, 15)].enumerated() {
            let p = WebMercator.worldPoint(cameras.last!.0.target, zoom: 3)
            let c = CameraPosition(target: WebMercator.coordinate(world: Point(x: p.x + step.0, y: p.y + step.1), zoom: 3), zoom: 3)
            cameras.append((c, i == 5 ? .final : .interactive))
        }
        cameras.append((CameraPosition(target: Coordinate(latitude: 30, longitude: 10), zoom: 3.4), .final))
        cameras.append((CameraPosition(target: Coordinate(latitude: 30, longitude: 10), zoom: 3.4, bearing: 30), .final))
        cameras.append((CameraPosition(target: Coordinate(latitude: 30, longitude: 10), zoom: 3.4, bearing: 30), .interactive))
        cameras.append((CameraPosition(target: Coordinate(latitude: 30, longitude: 10), zoom: 3.6, bearing: 20, tilt: 50), .final))
        cameras.append((CameraPosition(target: Coordinate(latitude: 30, longitude: 10), zoom: 3.6, bearing: 20, tilt: 50), .interactive))
        cameras.append((CameraPosition(target: Coordinate(latitude: 46.5, longitude: 6.6), zoom: 7.3), .final))
        var kinds = Set<String>()
        for (i, (camera, quality)) in cameras.enumerated() {
            scene.camera = camera
            a.render(scene, into: fa.buffer, quality: quality)
            b.render(scene, into: fb.buffer, quality: quality)
            kinds.insert("\(a.lastFrameKind)")
            let n = OverlayLayerTests.differingPixels(fa.buffer, fb.buffer)
            if n > 0 { OverlayLayerTests.save(fa.buffer, "regions-\(i)"); OverlayLayerTests.save(fb.buffer, "whole-\(i)") }
            #expect(n == 0, "frame \(i) (\(camera), \(a.lastFrameKind)): \(n) pixels differ")
        }
        #expect(kinds.contains("scrolled") && kinds.contains("full"), "\(kinds)")
        #expect(paletted.expansions > 0 && plain.expansions == 0)
        #expect(paletted.scratchBytes <= 2 * 256 * 256 * 4, "one tile's scratch a format, nothing kept expanded")
    }

    /// A scroll strip of the base map expands only the strips of its tiles, not whole tiles:
    /// a few rows of each tile it crosses.
    @Test func aScrollStripExpandsOnlyItsRows() throws {
        let source = RasterTileSource(tiles: try MBTiles(path: fixture("node-mbtiles_plain_1.mbtiles")))
        let renderer = MapRenderer(raster: source)
        let frame = OwnedFrameBuffer(width: 800, height: 480)
        let start = CameraPosition(target: Coordinate(latitude: 30, longitude: 10), zoom: 4)
        renderer.render(MapScene(camera: start), into: frame.buffer)
        #expect(renderer.lastFrameKind == .cacheRebuilt, "\(renderer.lastFrameKind)")
        let built = source.expandedPixels
        #expect(built >= 800 * 480, "the cache's build expands at least a screenful: \(built)")
        // Down by 100 px: a strip of the cache at least that tall across its width is drawn.
        let p = WebMercator.worldPoint(start.target, zoom: 4)
        let moved = CameraPosition(target: WebMercator.coordinate(world: Point(x: p.x, y: p.y + 100), zoom: 4), zoom: 4)
        renderer.render(MapScene(camera: moved), into: frame.buffer, quality: .interactive)
        #expect(renderer.lastFrameKind == .scrolled, "\(renderer.lastFrameKind)")
        let strip = source.expandedPixels - built
        let cacheWidth = 800 + 2 * MapRenderer.cacheMargin(width: 800, height: 480)
        let stripTiles = (cacheWidth + 255) / 256 + 1
        #expect(strip > 0 && strip < stripTiles * 256 * 256 / 2, "a strip expanded \(strip) px; its \(stripTiles) tiles whole would be \(stripTiles * 65536)")
    }
}
