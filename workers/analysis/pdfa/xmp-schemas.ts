// The XMP schemas PDF/A predefines (ISO 19005-1 §6.7.9 names those of the
// XMP Specification 2004; ISO 19005-2 §6.6.2.3.1 those of 2005), each
// property with its value type, and the value types themselves: a property
// outside them needs an extension schema in the packet, and every value must
// be of its property's type. The tables transcribe the XMP specification's
// schema chapters (property, value type), in the form veraPDF checks them.
import type { XmpNode } from './xmp-tree.js';

export const NS = {
  pdfaid: 'http://www.aiim.org/pdfa/ns/id/',
  dc: 'http://purl.org/dc/elements/1.1/',
  xmp: 'http://ns.adobe.com/xap/1.0/',
  xmpRights: 'http://ns.adobe.com/xap/1.0/rights/',
  xmpMM: 'http://ns.adobe.com/xap/1.0/mm/',
  xmpBJ: 'http://ns.adobe.com/xap/1.0/bj/',
  xmpTPg: 'http://ns.adobe.com/xap/1.0/t/pg/',
  xmpDM: 'http://ns.adobe.com/xmp/1.0/DynamicMedia/',
  pdf: 'http://ns.adobe.com/pdf/1.3/',
  photoshop: 'http://ns.adobe.com/photoshop/1.0/',
  crs: 'http://ns.adobe.com/camera-raw-settings/1.0/',
  tiff: 'http://ns.adobe.com/tiff/1.0/',
  exif: 'http://ns.adobe.com/exif/1.0/',
  aux: 'http://ns.adobe.com/exif/1.0/aux/',
  pdfaExtension: 'http://www.aiim.org/pdfa/ns/extension/',
  pdfaSchema: 'http://www.aiim.org/pdfa/ns/schema#',
  pdfaProperty: 'http://www.aiim.org/pdfa/ns/property#',
  pdfaType: 'http://www.aiim.org/pdfa/ns/type#',
  pdfaField: 'http://www.aiim.org/pdfa/ns/field#',
  stDim: 'http://ns.adobe.com/xap/1.0/sType/Dimensions#',
  stFnt: 'http://ns.adobe.com/xap/1.0/sType/Font#',
  xmpG: 'http://ns.adobe.com/xap/1.0/g/',
  xmpGImg: 'http://ns.adobe.com/xap/1.0/g/img/',
  stEvt: 'http://ns.adobe.com/xap/1.0/sType/ResourceEvent#',
  stRef: 'http://ns.adobe.com/xap/1.0/sType/ResourceRef#',
  stVer: 'http://ns.adobe.com/xap/1.0/sType/Version#',
  stJob: 'http://ns.adobe.com/xap/1.0/sType/Job#',
} as const;

/** "name Type; name Type" → map. */
function table(spec: string): Map<string, string> {
  const map = new Map<string, string>();
  for (const entry of spec.split(';')) {
    const [name, ...type] = entry.trim().split(/\s+/);
    if (name) map.set(name, type.join(' '));
  }
  return map;
}

const COMMON: Record<string, string> = {
  [NS.pdfaid]: 'part Integer; amd Text; conformance Text',
  [NS.dc]:
    'contributor Bag ProperName; coverage Text; creator Seq ProperName; date Seq Date; description Lang Alt; format MIMEType; identifier Text; language Bag Locale; publisher Bag ProperName; relation Bag Text; rights Lang Alt; source Text; subject Bag Text; title Lang Alt; type Bag Text',
  [NS.xmp]: 'Advisory Bag XPath; BaseURL URL; CreateDate Date; CreatorTool AgentName; Identifier Bag Text; MetadataDate Date; ModifyDate Date; Nickname Text; Thumbnails Alt Thumbnail',
  [NS.xmpRights]: 'Certificate URL; Marked Boolean; Owner Bag ProperName; UsageTerms Lang Alt; WebStatement URL',
  [NS.xmpMM]:
    'DerivedFrom ResourceRef; DocumentID URI; History Seq ResourceEvent; InstanceID URI; ManagedFrom ResourceRef; Manager AgentName; ManageTo URI; ManageUI URI; ManagerVariant Text; RenditionClass RenditionClass; RenditionParams Text; VersionID Text; Versions Seq Version; LastURL URL; RenditionOf ResourceRef; SaveID Integer',
  [NS.xmpBJ]: 'JobRef Bag Job',
  [NS.xmpTPg]: 'MaxPageSize Dimensions; NPages Integer',
  [NS.pdf]: 'Keywords Text; PDFVersion Text; Producer AgentName',
  [NS.photoshop]:
    'AuthorsPosition Text; CaptionWriter ProperName; Category Text; City Text; Country Text; Credit Text; DateCreated Date; Headline Text; Instructions Text; Source Text; State Text; TransmissionReference Text; Urgency Integer',
  [NS.tiff]:
    'ImageWidth Integer; ImageLength Integer; BitsPerSample Seq Integer; SamplesPerPixel Integer; XResolution Rational; YResolution Rational; TransferFunction Seq Integer; WhitePoint Seq Rational; PrimaryChromaticities Seq Rational; YCbCrCoefficients Seq Rational; ReferenceBlackWhite Seq Rational; DateTime Date; ImageDescription Lang Alt; Make ProperName; Model ProperName; Software AgentName; Artist ProperName; Copyright Lang Alt; Compression Integer; PhotometricInterpretation Integer; Orientation Integer; PlanarConfiguration Integer; YCbCrPositioning Integer; ResolutionUnit Integer; YCbCrSubSampling Seq Integer',
  [NS.exif]:
    'CompressedBitsPerPixel Rational; PixelXDimension Integer; PixelYDimension Integer; UserComment Lang Alt; RelatedSoundFile Text; DateTimeOriginal Date; DateTimeDigitized Date; ExposureTime Rational; FNumber Rational; SpectralSensitivity Text; ISOSpeedRatings Seq Integer; OECF OECF/SFR; ShutterSpeedValue Rational; ApertureValue Rational; BrightnessValue Rational; ExposureBiasValue Rational; MaxApertureValue Rational; SubjectDistance Rational; Flash Flash; FocalLength Rational; SubjectArea Seq Integer; FlashEnergy Rational; SpatialFrequencyResponse OECF/SFR; FocalPlaneXResolution Rational; FocalPlaneYResolution Rational; SubjectLocation Seq Integer; ExposureIndex Rational; CFAPattern CFAPattern; DigitalZoomRatio Rational; FocalLengthIn35mmFilm Integer; DeviceSettingDescription DeviceSettings; ImageUniqueID Text; GPSVersionID Text; GPSLatitude GPSCoordinate; GPSLongitude GPSCoordinate; GPSAltitude Rational; GPSTimeStamp Date; GPSSatellites Text; GPSDOP Rational; GPSSpeed Rational; GPSTrack Rational; GPSImgDirection Rational; GPSMapDatum Text; GPSDestLatitude GPSCoordinate; GPSDestLongitude GPSCoordinate; GPSDestBearing Rational; GPSDestDistance Rational; GPSProcessingMethod Text; GPSAreaInformation Text; ExposureProgram Integer; MeteringMode Integer; FocalPlaneResolutionUnit Integer; SensingMethod Integer; FileSource Integer; SceneType Integer; CustomRendered Integer; ExposureMode Integer; WhiteBalance Integer; SceneCaptureType Integer; GainControl Integer; Contrast Integer; Saturation Integer; Sharpness Integer; SubjectDistanceRange Integer; GPSAltitudeRef Integer; GPSStatus Text; GPSSpeedRef Text; GPSTrackRef Text; GPSImgDirectionRef Text; GPSDestBearingRef Text; GPSDestDistanceRef Text; GPSDifferential Integer; ComponentsConfiguration Seq Integer; ExifVersion Text; FlashpixVersion Text; ColorSpace Integer; LightSource Integer; GPSMeasureMode Integer',
};

const PART1: Record<string, string> = {
  [NS.photoshop]: 'SupplementalCategories Text',
  [NS.exif]: 'MakerNote Text',
};

const PART2: Record<string, string> = {
  [NS.pdfaid]: 'corr Text',
  [NS.xmp]: 'Label Text; Rating Integer',
  [NS.xmpTPg]: 'Fonts Bag Font; Colorants Seq Colorant; PlateNames Seq Text',
  [NS.xmpDM]:
    'projectRef ProjectLink; videoAlphaPremultipleColor Colorant; videoFrameRate Text; videoFrameSize Dimensions; videoPixelAspectRatio Rational; videoAlphaUnityIsTransparent Boolean; videoCompressor Text; audioSampleRate Integer; audioCompressor Text; speakerPlacement Text; fileDataRate Rational; tapeName Text; altTapeName Text; startTimecode Timecode; altTimecode Timecode; duration Time; scene Text; shotName Text; shotDate Date; shotLocation Text; logComment Text; markers Seq Marker; contributedMedia Bag Media; absPeakAudioFilePath URI; relativePeakAudioFilePath URI; videoModDate Date; audioModDate Date; metadataModDate Date; artist Text; album Text; trackNumber Integer; genre Text; copyright Text; releaseDate Date; composer Text; engineer Text; tempo Real; instrument Text; introTime Time; outCue Time; relativeTimestamp Time; loop Boolean; numberOfBeats Real; timeScaleParams timeScaleStretch; resampleParams resampleStretch; beatSpliceParams beatSpliceStretch; videoPixelDepth Text; videoColorSpace Text; videoAlphaMode Text; videoFieldOrder Text; pullDown Text; audioSampleType Text; audioChannelType Text; key Text; stretchMode Text; timeSignature Text; scaleType Text',
  [NS.photoshop]: 'SupplementalCategories Bag Text',
  [NS.crs]:
    'AutoBrightness Boolean; AutoContrast Boolean; AutoExposure Boolean; AutoShadows Boolean; BlueHue Integer; BlueSaturation Integer; Brightness Integer; CameraProfile Text; ChromaticAberrationB Integer; ChromaticAberrationR Integer; ColorNoiseReduction Integer; Contrast Integer; CropTop Real; CropLeft Real; CropBottom Real; CropRight Real; CropAngle Real; CropWidth Real; CropHeight Real; CropUnits Integer; Exposure Real; GreenHue Integer; GreenSaturation Integer; HasCrop Boolean; HasSettings Boolean; LuminanceSmoothing Integer; RawFileName Text; RedHue Integer; RedSaturation Integer; Saturation Integer; Shadows Integer; ShadowTint Integer; Sharpness Integer; Temperature Integer; Tint Integer; ToneCurveName Text; Version Text; VignetteAmount Integer; VignetteMidpoint Integer; WhiteBalance Text; ToneCurve Seq Text',
  [NS.exif]: 'ExifVersion Text; FlashpixVersion Text; GPSMeasureMode Text',
  [NS.aux]: 'Lens Text; SerialNumber Text',
};

interface StructType {
  readonly namespace: string;
  readonly fields: Map<string, string>;
}

const STRUCTS_COMMON: Record<string, [string, string]> = {
  dimensions: [NS.stDim, 'w Real; h Real; unit Text'],
  thumbnail: [NS.xmpGImg, 'height Integer; width Integer; image Text; format Text'],
  resourceevent: [NS.stEvt, 'action Text; instanceID URI; parameters Text; softwareAgent AgentName; when Date; changed Text'],
  resourceref: [NS.stRef, 'instanceID URI; documentID URI; versionID Text; renditionClass RenditionClass; renditionParams Text; manager AgentName; managerVariant Text; manageTo URI; manageUI URI'],
  version: [NS.stVer, 'comments Text; event ResourceEvent; modifyDate Date; modifier ProperName; version Text'],
  job: [NS.stJob, 'name Text; id Text; url URL'],
  flash: [NS.exif, 'Fired Boolean; Function Boolean; RedEyeMode Boolean; Return Integer; Mode Integer'],
  'oecf/sfr': [NS.exif, 'Columns Integer; Rows Integer; Names Seq Text; Values Seq Rational'],
  cfapattern: [NS.exif, 'Columns Integer; Rows Integer; Values Seq Integer'],
  devicesettings: [NS.exif, 'Columns Integer; Rows Integer; Settings Seq Text'],
};

const STRUCTS_PART2: Record<string, [string, string]> = {
  colorant: [NS.xmpG, 'swatchName Text; cyan Real; magenta Real; yellow Real; black Real; red Integer; green Integer; blue Integer; L Real; A Integer; B Integer; mode Text; type Text'],
  font: [NS.stFnt, 'fontName Text; fontFamily Text; fontFace Text; fontType Text; versionString Text; composite Boolean; fontFileName Text; childFontFiles Seq Text'],
  beatsplicestretch: [NS.xmpDM, 'useFileBeatsMarker Boolean; riseInDecibel Real; riseInTimeDuration Time'],
  marker: [NS.xmpDM, 'startTime Time; duration Time; comment Text; name Text; location URI; target Text; type Text'],
  media: [NS.xmpDM, 'path URI; track Text; startTime Time; duration Time; managed Boolean; webStatement URI'],
  projectlink: [NS.xmpDM, 'path URI; type Text'],
  resamplestretch: [NS.xmpDM, 'quality Text'],
  time: [NS.xmpDM, 'value Integer; scale Rational'],
  timecode: [NS.xmpDM, 'timeValue Text; timeFormat Text'],
  timescalestretch: [NS.xmpDM, 'frameSize Real; frameOverlappingPercentage Real; quality Text'],
};

const SIMPLE: Record<string, RegExp> = {
  boolean: /^(True|False)$/,
  integer: /^[+-]?\d+$/,
  real: /^([+-]?\d+\.?\d*|[+-]?\d*\.?\d+)$/,
  mimetype: /^[-\w+.]+\/[-\w+.]+$/,
  propername: /^[\s\S]*$/,
  text: /^[\s\S]*$/,
  agentname: /^[\s\S]*$/,
  rational: /^[\s\S]*$/,
  renditionclass: /^[\s\S]*$/,
  uri: /^[\s\S]*$/,
  url: /^[\s\S]*$/,
  xpath: /^[\s\S]*$/,
};

/** ISO 8601 as XMP allows it (XMP 2005 §8.2.1.4): YYYY, YYYY-MM, YYYY-MM-DD, with time to minutes, seconds or fractions and a zone. */
const DATE = /^\d{4}(-\d{2}(-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?)?)?)?$/;

/** The schemas and types one part predefines, plus what the packet's extension schemas add. */
export class SchemaSet {
  readonly properties = new Map<string, Map<string, string>>();
  readonly structs = new Map<string, StructType>();
  private readonly simple: Record<string, RegExp>;

  constructor(readonly part: 1 | 2 | 3) {
    const add = (specs: Record<string, string>): void => {
      for (const [namespace, spec] of Object.entries(specs)) {
        const map = this.properties.get(namespace) ?? new Map<string, string>();
        for (const [name, type] of table(spec)) map.set(name, type);
        this.properties.set(namespace, map);
      }
    };
    add(COMMON);
    add(part === 1 ? PART1 : PART2);
    for (const [name, [namespace, spec]] of Object.entries({ ...STRUCTS_COMMON, ...(part === 1 ? {} : STRUCTS_PART2) })) {
      this.structs.set(name, { namespace, fields: table(spec) });
    }
    this.simple = {
      ...SIMPLE,
      gpscoordinate: part === 1 ? /^\d{2},\d{2}[,.]\d{2}[NSEW]$/ : /^\d{1,3},\d{1,2}(,\d{1,2}|\.\d+)[NSEW]$/,
      locale: part === 1 ? /^([a-zA-Z]{1,8})((-[a-zA-Z]{1,8})*)$/ : /^([a-zA-Z]{1,8})((-[a-zA-Z0-9]{1,8})*)$/,
    };
  }

  typeOf(namespace: string, name: string): string | undefined {
    return this.properties.get(namespace)?.get(name);
  }

  defineProperty(namespace: string, name: string, type: string): void {
    const map = this.properties.get(namespace) ?? new Map<string, string>();
    if (!map.has(name)) map.set(name, type);
    this.properties.set(namespace, map);
  }

  defineStruct(type: string, namespace: string, fields: Map<string, string>): void {
    const key = simplify(type);
    if (!this.structs.has(key) && !(key in this.simple) && fields.size > 0) this.structs.set(key, { namespace, fields });
  }

  isKnownType(type: string): boolean {
    let t = simplify(type);
    for (;;) {
      const array = /^(bag|seq|alt) (.*)$/.exec(t);
      if (array === null) break;
      t = array[2]!;
    }
    return t === 'lang alt' || t === 'date' || t in this.simple || this.structs.has(t);
  }

  /** Whether `node` holds a value of `type` ("Seq ProperName", "Lang Alt", "Dimensions", ...). */
  validates(node: XmpNode, type: string, depth = 0): boolean {
    if (depth > 16) return false;
    const t = simplify(type);
    const array = /^(bag|seq|alt) (.*)$/.exec(t);
    if (array !== null) {
      if (node.kind !== 'array' || node.arrayType?.toLowerCase() !== array[1]) return false;
      return node.children.every((item) => this.validates(item, array[2]!, depth + 1));
    }
    if (t === 'lang alt') return node.kind === 'array' && node.arrayType === 'Alt' && node.children.every((item) => item.kind === 'simple' && item.lang !== undefined);
    if (t === 'date') return node.kind === 'simple' && DATE.test(node.value.trim());
    const pattern = this.simple[t];
    if (pattern !== undefined) return node.kind === 'simple' && pattern.test(node.value);
    const struct = this.structs.get(t);
    if (struct === undefined) return false;
    if (node.kind !== 'struct') return false;
    return node.children.every((field) => {
      if (field.namespace !== struct.namespace) return false;
      const fieldType = struct.fields.get(field.name);
      return fieldType !== undefined && this.validates(field, fieldType, depth + 1);
    });
  }
}

/** veraPDF's reading of a type name: case and "open/closed Choice of" ignored; a bare array kind is an array of Text. */
function simplify(type: string): string {
  let t = type.toLowerCase().replace(/(open |closed )?(choice |choice$)(of )?/g, '').trim();
  if (t === '') return 'text';
  if (t.endsWith('lang alt')) return t;
  if (/(bag|seq|alt)$/.test(t)) t += ' text';
  return t;
}
