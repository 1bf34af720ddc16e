"""Video-feature bags for anomaly detection (reconstruction of RTFM's dataset.py)."""

import numpy as np
import torch
import torch.utils.data as data

torch.set_default_tensor_type('torch.cuda.FloatTensor')


class Dataset(data.Dataset):
    def __init__(self, args, is_normal=True, test_mode=False):
        self.is_normal = is_normal
        self.test_mode = test_mode
        count = args.num_videos if not test_mode else 2
        self.features = [np.random.rand(10, 32, args.feature_size).astype(np.float32) for _ in range(count)]
        self.labels = [0.0 if is_normal else 1.0] * count

    def __getitem__(self, index):
        features = self.features[index]
        if self.test_mode:
            return features
        return features, self.labels[index]

    def __len__(self):
        return len(self.features)
