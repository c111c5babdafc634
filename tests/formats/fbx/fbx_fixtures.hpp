// FBX files written by us for the tests: a small ASCII 7.4 scene (a skinned quad on two bones,
// a material with a texture, a template default, a pre-rotation, a geometric translation) and
// any FBX node tree written back as binary in either record width, byte order and array encoding.
#pragma once

#include <zlib.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "formats/fbx/fbx_document.hpp"

namespace rigport::test {

// Expected (docs/fbx.md §2; worked out by hand): mesh 'Quad' at (5,0,1) (6,0,1) (6,1,1) (5,1,1),
// normals +Z, UVs V-flipped, two triangles (0 1 2) (0 2 3); joints Root (0,1,0) and Tip (0,1,0)
// turned 90 degrees about Z under it; vertices 0, 1 on Root, 2, 3 on Tip; material 'Skin' red with
// tex/skin.png; Y up, 1 cm units; an animation "Bend" (24 fps) turning Tip's Lcl Rotation Z from
// 0 to 90 degrees from 1 s to 2 s of the file's time (the stack starts at 1 s); a blend shape
// "Lift" at 50 % moving vertices 2 and 3 by (0, 0, 1).
inline std::string fbx_skinned_quad_ascii() {
    return R"(; FBX 7.4.0 project file
; written by hand for rigport's tests
FBXHeaderExtension:  {
	FBXHeaderVersion: 1003
	FBXVersion: 7400
	Creator: "rigport tests"
}
GlobalSettings:  {
	Version: 1000
	Properties70:  {
		P: "UpAxis", "int", "Integer", "",1
		P: "UpAxisSign", "int", "Integer", "",1
		P: "UnitScaleFactor", "double", "Number", "",1
		P: "TimeMode", "enum", "", "",11
	}
}
Definitions:  {
	ObjectType: "Model" {
		Count: 3
		PropertyTemplate: "FbxNode" {
			Properties70:  {
				P: "RotationActive", "bool", "", "",1
				P: "Lcl Scaling", "Lcl Scaling", "", "A",1,1,1
			}
		}
	}
}
Objects:  {
	Geometry: 100, "Geometry::Quad", "Mesh" {
		Vertices: *12 {
			a: 0,0,0,1,0,0,1,1,0,0,1,0
		}
		PolygonVertexIndex: *4 {
			a: 0,1,2,-4
		}
		LayerElementNormal: 0 {
			MappingInformationType: "ByPolygonVertex"
			ReferenceInformationType: "Direct"
			Normals: *12 {
				a: 0,0,1,0,0,1,0,0,1,0,0,1
			}
		}
		LayerElementUV: 0 {
			Name: "map1"
			MappingInformationType: "ByPolygonVertex"
			ReferenceInformationType: "IndexToDirect"
			UV: *8 {
				a: 0,0,1,0,1,1,0,1
			}
			UVIndex: *4 {
				a: 0,1,2,3
			}
		}
		LayerElementMaterial: 0 {
			MappingInformationType: "AllSame"
			ReferenceInformationType: "IndexToDirect"
			Materials: *1 {
				a: 0
			}
		}
	}
	Model: 200, "Model::Quad", "Mesh" {
		Properties70:  {
			P: "Lcl Translation", "Lcl Translation", "", "A",5,0,0
			P: "GeometricTranslation", "Vector3D", "Vector", "",0,0,1
		}
	}
	Model: 300, "Model::Root", "LimbNode" {
		Properties70:  {
			P: "Lcl Translation", "Lcl Translation", "", "A",0,1,0
		}
	}
	Model: 400, "Model::Tip", "LimbNode" {
		Properties70:  {
			P: "PreRotation", "Vector3D", "Vector", "",0,0,90
			P: "Lcl Translation", "Lcl Translation", "", "A",0,1,0
		}
	}
	Material: 500, "Material::Skin", "" {
		ShadingModel: "lambert"
		Properties70:  {
			P: "DiffuseColor", "Color", "", "A",1,0,0
		}
	}
	Texture: 600, "Texture::skin", "" {
		FileName: "C:\art\tex\skin.png"
		RelativeFilename: "tex\skin.png"
	}
	Deformer: 700, "Deformer::Skin", "Skin" {
		Version: 101
	}
	Deformer: 800, "SubDeformer::Root", "Cluster" {
		Indexes: *2 {
			a: 0,1
		}
		Weights: *2 {
			a: 1,1
		}
		Transform: *16 {
			a: 1,0,0,0,0,1,0,0,0,0,1,0,5,-1,0,1
		}
		TransformLink: *16 {
			a: 1,0,0,0,0,1,0,0,0,0,1,0,0,1,0,1
		}
	}
	Deformer: 900, "SubDeformer::Tip", "Cluster" {
		Indexes: *2 {
			a: 2,3
		}
		Weights: *2 {
			a: 1,1
		}
		Transform: *16 {
			a: 0,-1,0,0,1,0,0,0,0,0,1,0,-2,-5,0,1
		}
		TransformLink: *16 {
			a: 0,1,0,0,-1,0,0,0,0,0,1,0,0,2,0,1
		}
	}
	Deformer: 1400, "Deformer::Shapes", "BlendShape" {
		Version: 100
	}
	Deformer: 1500, "SubDeformer::Lift", "BlendShapeChannel" {
		Version: 100
		DeformPercent: 50
		FullWeights: *1 {
			a: 100
		}
	}
	Geometry: 1600, "Geometry::Lift", "Shape" {
		Version: 100
		Indexes: *2 {
			a: 2,3
		}
		Vertices: *6 {
			a: 0,0,1,0,0,1
		}
	}
	AnimationStack: 1000, "AnimStack::Bend", "" {
		Properties70:  {
			P: "LocalStart", "KTime", "Time", "",46186158000
			P: "LocalStop", "KTime", "Time", "",92372316000
		}
	}
	AnimationLayer: 1100, "AnimLayer::BaseLayer", "" {
	}
	AnimationCurveNode: 1200, "AnimCurveNode::R", "" {
		Properties70:  {
			P: "d|X", "Number", "", "A",0
			P: "d|Y", "Number", "", "A",0
			P: "d|Z", "Number", "", "A",0
		}
	}
	AnimationCurve: 1300, "AnimCurve::", "" {
		Default: 0
		KeyVer: 4009
		KeyTime: *2 {
			a: 46186158000,92372316000
		}
		KeyValueFloat: *2 {
			a: 0,90
		}
		KeyAttrFlags: *1 {
			a: 4
		}
		KeyAttrRefCount: *1 {
			a: 2
		}
	}
}
Connections:  {
	C: "OO",200,0
	C: "OO",100,200
	C: "OO",500,200
	C: "OP",600,500, "DiffuseColor"
	C: "OO",300,0
	C: "OO",400,300
	C: "OO",700,100
	C: "OO",800,700
	C: "OO",900,700
	C: "OO",300,800
	C: "OO",400,900
	C: "OO",1400,100
	C: "OO",1500,1400
	C: "OO",1600,1500
	C: "OO",1100,1000
	C: "OO",1200,1100
	C: "OP",1200,400, "Lcl Rotation"
	C: "OP",1300,1200, "d|Z"
}
)";
}

// The same skinned quad as 3ds Max's FBX 5.x writes it (docs/fbx.md §2.1): models at the top
// level, each holding its geometry (Normals by control point, GeometryUVInfo by corner with an
// index, MaterialAssignation), its material (plain values) and its skin (one Link per bone),
// children named in `Children`, places only as Transform channel defaults: Root's and Tip's in
// the take "Bend", Marker's in its own channels (as binary 5.0 files write them).
// Expected (worked out by hand): mesh 'Quad' at (5,0,0) (6,0,0) (6,1,0) (5,1,0) (TransformLink *
// Transform of its first Link), normals +Z, UVs by the index (0,1) (1,1) (1,0) (0,0) after the V
// flip, triangles (0 1 2) (0 2 3); material 'Skin "red"' (1,0,0); joints Root (0,1,0) and Tip
// (0,1,0) turned 90 degrees about Z under it (from the clusters), vertices 0, 1 on Root, 2, 3 on
// Tip; mesh 'Marker "1"' (a triangle under Tip, (0,0,3) from it by its own channels) rigid on Tip
// at (0,2,3) (0,3,3) (-1,2,3); an animation "Bend" at 24 fps (Settings/FrameRate) turning Tip
// from 90 to 180 degrees about Z from 0 s to 1 s (cubic keys with flat slopes and 5.x weights).
inline std::string fbx_five_skinned_quad_ascii() {
    return R"(; FBX 5.8.0 project file
; written by hand for rigport's tests
FBXHeaderExtension:  {
    FBXHeaderVersion: 1003
    FBXVersion: 5800
    Creator: "rigport tests"
}
CreationTime: "2024-01-01 00:00:00:000"
Model: "Model::Root" {
    Version: 194
    Type: "Limb"
    Children: "Model::Tip"
}
Model: "Model::Tip" {
    Version: 194
    Type: "Limb"
    Children: "Model::Marker &quot;1&quot;"
}
Model: "Model::Quad" {
    Version: 194
    Material: "Material::Skin &quot;red&quot;" {
        Version: 100
        ShadingModel: "phong"
        Ambient: 0.2,0.2,0.2
        Diffuse: 1,0,0
        Alpha: 1
    }
    GeometryVersion: 123
    Vertices: 0,0,0,1,0,0,1,1,0,0,1,0
    Normals: 0,0,1,0,0,1,0,0,1,0,0,1
    MaterialAssignation: "AllSame"
    Materials: 0
    PolygonVertexIndex: 0,1,2,-4
    GeometryUVInfo:  {
        Version: 240
        MappingInformationType: "ByPolygon"
        TextureUV: 1,1,0,0,1,0,0,1
        TextureUVVerticeIndex: 1,2,0,3
    }
    Link: "Model::Root" {
        Version: 100
        Indexes: 0,1
        Weights: 1,1
        Transform: 1,0,0,0,0,1,0,0,0,0,1,0,5,-1,0,1
        TransformLink: 1,0,0,0,0,1,0,0,0,0,1,0,0,1,0,1
    }
    Link: "Model::Tip" {
        Version: 100
        Indexes: 2,3
        Weights: 1,1
        Transform: 0,-1,0,0,1,0,0,0,0,0,1,0,-2,-5,0,1
        TransformLink: 0,1,0,0,-1,0,0,0,0,0,1,0,0,2,0,1
    }
}
Model: "Model::Marker &quot;1&quot;" {
    Version: 194
    Vertices: 0,0,0,1,0,0,0,1,0
    Normals: 0,0,1,0,0,1,0,0,1
    PolygonVertexIndex: 0,1,-3
    Channel: "Transform" {
        Channel: "T" {
            Channel: "X" {
                Default: 0
            }
            Channel: "Y" {
                Default: 0
            }
            Channel: "Z" {
                Default: 3
            }
            LayerType: 1
        }
    }
}
Takes:  {
    Current: "Bend"
    Take: "Bend" {
        FileName: "Bend.tak"
        LocalTime: 0,46186158000
        ReferenceTime: 0,46186158000
        Model: "Model::Root" {
            Version: 1.1
            Channel: "Transform" {
                Channel: "T" {
                    Channel: "X" {
                        Default: 0
                    }
                    Channel: "Y" {
                        Default: 1
                    }
                    Channel: "Z" {
                        Default: 0
                    }
                    LayerType: 1
                }
            }
        }
        Model: "Model::Tip" {
            Version: 1.1
            Channel: "Transform" {
                Channel: "T" {
                    Channel: "Y" {
                        Default: 1
                    }
                    LayerType: 1
                }
                Channel: "R" {
                    Channel: "Z" {
                        Default: 90
                        KeyVer: 4005
                        KeyCount: 2
                        Key: 0,90,U,s,0,0,a,0.333333,0.333333,46186158000,180,U,s,0,0,r,0.989999
                    }
                    LayerType: 2
                }
            }
        }
    }
}
Settings:  {
    TimeMode: 3
    FrameRate: "24"
    TimeFormat: 1
}
)";
}

// A node tree as binary FBX. Arrays keep their kind (ASCII integer lists become 'l' here, 'd'
// lists 'd'); `deflate` compresses every array with zlib.
class FbxBinaryWriter {
public:
    FbxBinaryWriter(uint32_t version, bool big, bool deflate) : version_(version), big_(big), deflate_(deflate) {}
    // FBX 5.x as 3ds Max 7 writes it (header version 3000): names without their class
    // ("Model::Box01" is "Box01"), number lists as plain values (I, D) rather than arrays, one-letter
    // words as one-byte 'C' values.
    FbxBinaryWriter& five() {
        five_ = true;
        return *this;
    }
    // Records without children written with an end offset of 0, as some Maya exporters do.
    FbxBinaryWriter& zero_leaf_ends() {
        zero_leaf_ends_ = true;
        return *this;
    }

    std::vector<uint8_t> write(const fbx::Document& doc) {
        bytes_.clear();
        const std::string magic = "Kaydara FBX Binary  ";
        bytes_.assign(magic.begin(), magic.end());
        bytes_.insert(bytes_.end(), {0, 0x1a, uint8_t(big_ ? 1 : 0)});
        put(version_, 4);
        for (const auto& n : doc.root.children) node(n);
        null_record();
        return bytes_;
    }

private:
    unsigned width() const { return version_ >= 7500 ? 8 : 4; }
    void put(uint64_t v, unsigned n) {
        for (unsigned i = 0; i < n; ++i) bytes_.push_back(uint8_t(v >> (8 * (big_ ? n - 1 - i : i))));
    }
    void patch(size_t at, uint64_t v) {
        for (unsigned i = 0; i < width(); ++i) bytes_[at + i] = uint8_t(v >> (8 * (big_ ? width() - 1 - i : i)));
    }
    void null_record() { bytes_.insert(bytes_.end(), 3 * width() + 1, 0); }

    void node(const fbx::Node& n) {
        const size_t at = bytes_.size();
        put(0, width());
        size_t count = n.properties.size();
        if (five_)
            for (const auto& p : n.properties) count += p.is_array() ? p.array_size() - 1 : 0;
        put(count, width());
        put(0, width());
        bytes_.push_back(uint8_t(n.name.size()));
        bytes_.insert(bytes_.end(), n.name.begin(), n.name.end());
        const size_t props = bytes_.size();
        for (const auto& p : n.properties) property(p);
        patch(at + 2 * width(), bytes_.size() - props);
        for (const auto& c : n.children) node(c);
        if (!n.children.empty()) null_record();
        patch(at, zero_leaf_ends_ && n.children.empty() ? 0 : bytes_.size());
    }

    void property(const fbx::Property& p) {
        if (five_ && (p.type == 'l' || p.type == 'd')) {
            for (size_t k = 0; k < p.count; ++k) {
                if (p.type == 'l') {
                    bytes_.push_back('I');
                    put(uint64_t(uint32_t(int32_t(p.integer_at(k)))), 4);
                } else {
                    fbx::Property d;
                    d.type = 'D';
                    d.number = p.number_at(k);
                    property(d);
                }
            }
            return;
        }
        if (five_ && p.type == 'W' && p.text.size() == 1) {
            bytes_.push_back('C');
            bytes_.push_back(uint8_t(p.text[0]));
            return;
        }
        if (five_ && p.type == 'S') {
            const size_t sep = p.text.find("::");
            const std::string_view s = sep == std::string_view::npos ? p.text : p.text.substr(sep + 2);
            bytes_.push_back('S');
            put(s.size(), 4);
            bytes_.insert(bytes_.end(), s.begin(), s.end());
            return;
        }
        switch (p.type) {
            case 'L': bytes_.push_back('L'); put(uint64_t(p.integer), 8); return;
            case 'D': {
                bytes_.push_back('D');
                uint64_t b;
                std::memcpy(&b, &p.number, 8);
                put(b, 8);
                return;
            }
            case 'l': case 'd': {
                std::vector<uint8_t> raw;
                const size_t count = p.count;
                for (size_t k = 0; k < count; ++k) {
                    uint64_t b;
                    if (p.type == 'l') {
                        b = uint64_t(p.integer_at(k));
                    } else {
                        const double v = p.number_at(k);
                        std::memcpy(&b, &v, 8);
                    }
                    for (unsigned i = 0; i < 8; ++i) raw.push_back(uint8_t(b >> (8 * (big_ ? 7 - i : i))));
                }
                std::vector<uint8_t> stored = raw;
                if (deflate_) {
                    uLongf n = compressBound(uLong(raw.size()));
                    stored.resize(n);
                    compress(stored.data(), &n, raw.data(), uLong(raw.size()));
                    stored.resize(n);
                }
                bytes_.push_back(uint8_t(p.type));
                put(count, 4);
                put(deflate_ ? 1 : 0, 4);
                put(stored.size(), 4);
                bytes_.insert(bytes_.end(), stored.begin(), stored.end());
                return;
            }
            default: {  // S and W (bare words) as strings; ASCII "Class::Name" becomes "Name\0\1Class"; R raw bytes
                std::string s(p.text);
                if (size_t sep = s.find("::"); p.type != 'R' && sep != std::string::npos) s = s.substr(sep + 2) + std::string("\0\1", 2) + s.substr(0, sep);
                bytes_.push_back(p.type == 'R' ? 'R' : 'S');
                put(s.size(), 4);
                bytes_.insert(bytes_.end(), s.begin(), s.end());
                return;
            }
        }
    }

    uint32_t version_;
    bool big_, deflate_;
    bool zero_leaf_ends_ = false;
    bool five_ = false;
    std::vector<uint8_t> bytes_;
};

}  // namespace rigport::test
