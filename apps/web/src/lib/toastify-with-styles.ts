// react-toastify and its stylesheet as one lazily loaded chunk (see toast.tsx).
import 'react-toastify/ReactToastify.css';

export { toast, ToastContainer, Zoom } from 'react-toastify/unstyled';
